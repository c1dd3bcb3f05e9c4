// Proves MID routing by table: lowest rank wins, equal ranks take turns, inactive never, traffic and first-time-depositor rules.
import { choose, exclusion, phoneCountry, shortlist } from '../../src/domain/routing';
import type { MidInfo, RouteRequest } from '../../src/domain/routing';

const now = new Date('2026-11-25T12:00:00Z');
const mid = (id: number, o: Partial<MidInfo> = {}): MidInfo => ({
  id,
  payment_method: 'MOBILE_MONEY',
  currency: 'UGX',
  allowed_traffic: 'ALL',
  processing_rank: 1,
  reject_first_time_depositors: false,
  active: true,
  ...o,
});
const req = (o: Partial<RouteRequest> = {}): RouteRequest => ({
  paymentMethod: 'MOBILE_MONEY',
  currency: 'UGX',
  payerCountry: 'UG',
  cardFirstSeenAt: null,
  now,
  ...o,
});
const pick = (r: RouteRequest, mids: MidInfo[], turn = 1) => choose(shortlist(r, mids), turn).mid_id;

describe('routing', () => {
  it.each([
    ['the lowest rank wins', [mid(1, { processing_rank: 2 }), mid(2, { processing_rank: 1 })], 2],
    ['an inactive MID is never chosen', [mid(1, { active: false }), mid(2, { processing_rank: 5 })], 2],
    ['only the payment method', [mid(1, { payment_method: 'CARD' }), mid(2, { processing_rank: 3 })], 2],
    ['only the request currency', [mid(1, { currency: 'KES' }), mid(2, { processing_rank: 3 })], 2],
    ['allowed traffic lists the payer country', [mid(1, { allowed_traffic: ['KE'] }), mid(2, { allowed_traffic: ['UG', 'KE'], processing_rank: 2 })], 2],
    ['no eligible MID: no route', [mid(1, { active: false }), mid(2, { currency: 'USD' })], null],
    ['no MIDs: no route', [], null],
  ])('%s', (_name, mids, expected) => {
    expect(pick(req(), mids as MidInfo[])).toBe(expected);
  });

  it('takes turns among equal ranks, in id order', () => {
    const mids = [mid(7), mid(3), mid(5), mid(9, { processing_rank: 2 })];
    expect([1, 2, 3, 4, 5, 6].map((t) => pick(req(), mids, t))).toEqual([3, 5, 7, 3, 5, 7]);
  });

  it('an unknown payer country only reaches MIDs open to ALL traffic', () => {
    const mids = [mid(1, { allowed_traffic: ['UG'] }), mid(2, { processing_rank: 4 })];
    expect(pick(req({ payerCountry: null }), mids)).toBe(2);
  });

  it('reject-first-time-depositors takes only a card first seen more than a year ago', () => {
    const card = { paymentMethod: 'CARD' as const };
    const mids = [mid(1, { payment_method: 'CARD', reject_first_time_depositors: true }), mid(2, { payment_method: 'CARD', processing_rank: 2 })];
    const yearAndDay = new Date(now.getTime() - 366 * 86400_000);
    const lastMonth = new Date(now.getTime() - 30 * 86400_000);
    expect(pick(req({ ...card, cardFirstSeenAt: yearAndDay }), mids)).toBe(1);
    expect(pick(req({ ...card, cardFirstSeenAt: lastMonth }), mids)).toBe(2);
    expect(pick(req({ ...card, cardFirstSeenAt: null }), mids)).toBe(2);
  });

  it('reject-first-time-depositors: exactly one year (365 days) is not more than a year; one millisecond more is', () => {
    const card = { paymentMethod: 'CARD' as const };
    const mids = [mid(1, { payment_method: 'CARD', reject_first_time_depositors: true }), mid(2, { payment_method: 'CARD', processing_rank: 2 })];
    const year = 365 * 86400_000;
    expect(pick(req({ ...card, cardFirstSeenAt: new Date(now.getTime() - year) }), mids)).toBe(2);
    expect(pick(req({ ...card, cardFirstSeenAt: new Date(now.getTime() - year - 1) }), mids)).toBe(1);
  });

  it('records why each MID was passed over', () => {
    const mids = [mid(1, { active: false }), mid(2), mid(3), mid(4, { processing_rank: 2 }), mid(5, { currency: 'KES' })];
    const decision = choose(shortlist(req(), mids), 2);
    expect(decision).toEqual({
      mid_id: 3,
      processing_rank: 1,
      candidates: [
        { mid_id: 1, processing_rank: 1, chosen: false, reason: 'inactive' },
        { mid_id: 2, processing_rank: 1, chosen: false, reason: 'round_robin' },
        { mid_id: 3, processing_rank: 1, chosen: true, reason: null },
        { mid_id: 5, processing_rank: 1, chosen: false, reason: 'currency' },
        { mid_id: 4, processing_rank: 2, chosen: false, reason: 'lower_priority' },
      ],
    });
  });

  it('knows the exclusion reasons', () => {
    expect(exclusion(req(), mid(1))).toBeNull();
    expect(exclusion(req({ payerCountry: 'KE' }), mid(1, { allowed_traffic: ['UG'] }))).toBe('allowed_traffic');
  });

  it.each([
    ['256777000001', 'UG'],
    ['254712345678', 'KE'],
    ['255712345678', 'TZ'],
    ['250788123456', 'RW'],
    ['14155550100', 'US'],
    ['999123456789', null],
  ])('maps %s to %s', (msisdn, country) => {
    expect(phoneCountry(msisdn)).toBe(country);
  });
});
