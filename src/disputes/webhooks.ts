// A dispute's merchant webhook (docs/contract/disputes.md, "The merchant is told"): one notification per
// event, written by the notifications wing in the transaction of the dispute's change, to the webhook of the
// API token that asked for the disputed payment. It names the dispute and its collection and numbers its own
// sequence per dispute.
import { sqlFile } from '../db';
import type { Tx } from '../db';
import type { DisputeView } from '../api-records/dispute';
import { toDisputeRecord } from '../api-records/dispute';
import type { NotificationService } from '../notifications/notifications';

const NOTICE = sqlFile(__dirname, 'notice.sql');

/** `dispute.opened`: recorded; `dispute.status_changed`: moved to another status; `dispute.deadline_near`: still unanswered as its deadline nears. */
export type DisputeEvent = 'dispute.opened' | 'dispute.status_changed' | 'dispute.deadline_near';

/** Writes the dispute's notification of `event` as it is now in `t` (the caller holds its row lock); nothing when no API token asked for the payment. */
export async function notifyDispute(t: Tx, notifications: Pick<NotificationService, 'enqueueWebhook'>, disputeId: bigint, event: DisputeEvent, now: Date): Promise<boolean> {
  const d = await t.one<DisputeView & { id: bigint; collection_id: bigint; api_token_id: number | null; sequence: number }>(NOTICE, { id: disputeId });
  if (d.api_token_id === null) return false;
  const body = JSON.stringify({ transaction_type: 'dispute', event, ...toDisputeRecord(d), sequence: d.sequence });
  await notifications.enqueueWebhook(t, { owner: { collectionId: d.collection_id, disputeId: d.id }, apiTokenId: d.api_token_id, sequence: d.sequence, status: d.status, body, now });
  return true;
}
