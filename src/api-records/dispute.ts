// The dispute record of the API (docs/contract/disputes.md), made from a row read with its collection's
// reference and the wallet's currency. Rows meet contract types here only.
import type { components as AdminComponents } from '../../generated/admin-api';
import type { components } from '../../generated/merchant-api';
import type { DisputeStage, DisputeStatus } from '../domain/dispute';
import { toApi } from '../domain/money';
import { apiTime, apiTimeOrNull } from '../domain/time';

/** A disputes row with its collection's gateway_reference and its wallet's currency (BIGINT -> bigint). */
export interface DisputeView {
  gateway_reference: string;
  collection_gateway_reference: string;
  stage: DisputeStage;
  status: DisputeStatus;
  reason: string | null;
  amount_minor: bigint;
  currency: string;
  held_minor: bigint;
  debited_minor: bigint | null;
  refunded_minor: bigint;
  account_currency: string;
  deadline_at: Date;
  resolution: string | null;
  opened_at: Date;
  closed_at: Date | null;
  business_id: number;
  business_name: string;
  mid_id: number;
}

export function toDisputeRecord(d: DisputeView): components['schemas']['DisputeRecord'] {
  return {
    gateway_reference: d.gateway_reference,
    collection_gateway_reference: d.collection_gateway_reference,
    stage: d.stage,
    status: d.status,
    reason: d.reason,
    amount: toApi(d.amount_minor),
    currency: d.currency,
    held_amount: toApi(d.held_minor),
    debited_amount: d.debited_minor === null ? null : toApi(d.debited_minor),
    refunded_amount: toApi(d.refunded_minor),
    account_currency: d.account_currency,
    deadline: apiTime(d.deadline_at),
    resolution: d.resolution,
    opened_at: apiTime(d.opened_at),
    closed_at: apiTimeOrNull(d.closed_at),
  };
}

/** The operator's record: the merchant's, with the business and the MID. */
export function toAdminDisputeRecord(d: DisputeView): AdminComponents['schemas']['AdminDispute'] {
  return { ...toDisputeRecord(d), business_id: d.business_id, business_name: d.business_name, mid_id: d.mid_id };
}
