// Database rows of the rates wing's operator view (fx_rate_jumps, rate_sources) and the API records built
// from them (admin.yaml's FxRateJump and FxRateWatch).
import { apiTime, apiTimeOrNull } from '../domain/time';
import { movePercent } from '../domain/rate-jump';
import type { components } from '../../generated/admin-api';

export type FxRateJumpRecord = components['schemas']['FxRateJump'];
export type FxRateWatchRecord = components['schemas']['FxRateWatch'];
export type FxRateWatchPair = FxRateWatchRecord['pairs'][number];
export type RateFeedStatus = FxRateWatchRecord['feeds'][number];

export interface FxRateJumpRow {
  id: string;
  base: string;
  quote: string;
  rate: string;
  source: FxRateJumpRecord['source'];
  as_of: Date;
  previous_rate: string;
  previous_source: FxRateJumpRecord['previous_source'];
  previous_as_of: Date;
  held_at: Date;
  decision: FxRateJumpRecord['decision'];
  decided_by: string | null;
  decided_at: Date | null;
}

export function fxRateJumpRecord(r: FxRateJumpRow): FxRateJumpRecord {
  return {
    base: r.base,
    quote: r.quote,
    rate: Number(r.rate),
    source: r.source,
    as_of: apiTime(r.as_of),
    previous_rate: Number(r.previous_rate),
    previous_source: r.previous_source,
    previous_as_of: apiTime(r.previous_as_of),
    move_percent: movePercent(r.previous_rate, r.rate),
    held_at: apiTime(r.held_at),
    decision: r.decision,
    decided_by: r.decided_by,
    decided_at: apiTimeOrNull(r.decided_at),
  };
}

export interface RateSourceRecordRow {
  name: RateFeedStatus['name'];
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_as_of: Date | null;
  last_error: string | null;
}

export function rateFeedStatus(r: RateSourceRecordRow, configured: boolean): RateFeedStatus {
  return {
    name: r.name,
    configured,
    last_attempt_at: apiTimeOrNull(r.last_attempt_at),
    last_success_at: apiTimeOrNull(r.last_success_at),
    last_as_of: apiTimeOrNull(r.last_as_of),
    last_error: r.last_error,
  };
}
