// MID routing (docs/contract/operator.md) as pure functions: which MIDs may take a payment, which rank
// wins, and whose turn it is among MIDs of equal rank. The caller keeps the round-robin turn.
import type { PaymentMethod, RoutingCandidate, RoutingDecision, RoutingReason } from './collection';

export interface MidInfo {
  id: number;
  payment_method: PaymentMethod;
  currency: string;
  allowed_traffic: 'ALL' | string[];
  processing_rank: number;
  reject_first_time_depositors: boolean;
  active: boolean;
}

export interface RouteRequest {
  paymentMethod: PaymentMethod;
  currency: string;
  /** payer's country (ISO 3166 alpha-2) when known */
  payerCountry: string | null;
  /** when this card was first seen on the service; null for a new or unknown card (and non-card payments) */
  cardFirstSeenAt: Date | null;
  now: Date;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** Why a MID cannot take the payment, or null when it can. */
export function exclusion(req: RouteRequest, mid: MidInfo): RoutingReason | null {
  if (!mid.active) return 'inactive';
  if (mid.payment_method !== req.paymentMethod) return 'payment_method';
  if (mid.currency !== req.currency) return 'currency';
  if (mid.allowed_traffic !== 'ALL' && (req.payerCountry === null || !mid.allowed_traffic.includes(req.payerCountry))) {
    return 'allowed_traffic';
  }
  if (mid.reject_first_time_depositors && req.paymentMethod === 'CARD') {
    const seasoned = req.cardFirstSeenAt !== null && req.now.getTime() - req.cardFirstSeenAt.getTime() > YEAR_MS;
    if (!seasoned) return 'first_time_depositor';
  }
  return null;
}

export interface Shortlist {
  /** eligible MIDs of the best (lowest) rank, by id; empty = no route */
  top: MidInfo[];
  rank: number | null;
  candidates: RoutingCandidate[];
}

export function shortlist(req: RouteRequest, mids: MidInfo[]): Shortlist {
  const reasons = new Map(mids.map((m) => [m.id, exclusion(req, m)]));
  const eligible = mids.filter((m) => reasons.get(m.id) === null);
  const rank = eligible.length > 0 ? Math.min(...eligible.map((m) => m.processing_rank)) : null;
  const top = eligible.filter((m) => m.processing_rank === rank).sort((a, b) => a.id - b.id);
  const candidates = mids
    .slice()
    .sort((a, b) => a.processing_rank - b.processing_rank || a.id - b.id)
    .map((m) => ({
      mid_id: m.id,
      processing_rank: m.processing_rank,
      chosen: false,
      reason: reasons.get(m.id) ?? (m.processing_rank !== rank ? 'lower_priority' : null),
    }));
  return { top, rank, candidates };
}

/** The MID whose turn it is (turn counts from 1 per business, method, currency and rank). */
export function choose(list: Shortlist, turn: number): RoutingDecision {
  if (list.top.length === 0) return { mid_id: null, processing_rank: null, candidates: list.candidates };
  const mid = list.top[(((turn - 1) % list.top.length) + list.top.length) % list.top.length];
  const candidates = list.candidates.map((c): RoutingCandidate => {
    if (c.mid_id === mid.id) return { ...c, chosen: true, reason: null };
    if (c.reason === null) return { ...c, reason: 'round_robin' };
    return c;
  });
  return { mid_id: mid.id, processing_rank: mid.processing_rank, candidates };
}

/** Country of an international phone number, by its calling code, for the networks we know. */
const CALLING_CODES: Record<string, string> = {
  '256': 'UG', '254': 'KE', '255': 'TZ', '250': 'RW', '257': 'BI', '211': 'SS', '243': 'CD', '233': 'GH',
  '234': 'NG', '237': 'CM', '225': 'CI', '221': 'SN', '260': 'ZM', '265': 'MW', '27': 'ZA', '44': 'GB', '1': 'US',
};

export function phoneCountry(msisdn: string): string | null {
  for (const len of [3, 2, 1]) {
    const c = CALLING_CODES[msisdn.slice(0, len)];
    if (c) return c;
  }
  return null;
}
