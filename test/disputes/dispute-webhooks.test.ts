// Proves a dispute's merchant webhooks (docs/contract/disputes.md, "The merchant is told") against the fake
// Paystack over real HTTP: a dispute opened by a signed event is told once (`dispute.opened`, the dispute
// record, signed with the token's webhook_hash), a redelivered event tells nothing more, each move to another
// status is told in the dispute's own sequence, and the reminder as the deadline nears is told once with its
// e-mail; none of them joins the collection's own notification log.
import type { HostedWorld } from '../helpers/hosted';
import { cardPaid, disputeIn, disputeWebhooks, signedByTheHostedHash, startDisputeWorld } from '../helpers/hosted-disputes';

let w: HostedWorld;

beforeAll(async () => {
  w = await startDisputeWorld();
}, 180_000);

afterAll(() => w?.close());

const db = () => w.svc.services.db;
const paid = () => cardPaid(w);
const inStatus = (processorId: number, status: string) => disputeIn(w, processorId, status);
const told = (gatewayReference: string) => disputeWebhooks(w, gatewayReference);

it('opened: one signed dispute.opened with the dispute record; a redelivered event tells nothing more; the collection\'s log does not show it', async () => {
  const { collection, tx } = await paid();
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  const [opened, ...more] = await told(row.gateway_reference);
  expect(more).toEqual([]);
  expect(signedByTheHostedHash(opened)).toBe(true);
  const record = (await w.client.get(`/v1/disputes/${row.gateway_reference}`)).body.data;
  expect(JSON.parse(opened.body)).toEqual({ transaction_type: 'dispute', event: 'dispute.opened', ...record, sequence: 1 });
  expect(record).toMatchObject({ collection_gateway_reference: collection, status: 'needs_response', amount: 25000, held_amount: 25000 });

  // the same event twice more, and a poll: the dispute is unchanged, so nothing is told
  w.paystack.disputes.resend(d.id, 'charge.dispute.create');
  w.paystack.disputes.resend(d.id, 'charge.dispute.create');
  await w.paystack.deliveriesDone();
  await w.svc.services.disputes.poll();
  expect(await told(row.gateway_reference)).toHaveLength(1);
  expect(await db().one<{ n: number }>('SELECT count(*)::int AS n FROM notifications WHERE dispute_id = $1', [row.id])).toEqual({ n: 1 });

  // the collection's own notification log and re-send stay the collection's
  const log = (await w.client.get(`/v1/collections/${collection}/notifications`)).body.data as { transaction_status: string }[];
  expect(log.map((n) => n.transaction_status)).toEqual(['COMPLETED']);
}, 60_000);

it('each move to another status is told in the dispute\'s own sequence: under review, then won', async () => {
  const { tx } = await paid();
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  w.paystack.disputes.contest(d.id);
  await w.svc.services.disputes.poll();
  await w.svc.services.disputes.poll();
  w.paystack.disputes.bankDecides(d.id, true);
  await inStatus(d.id, 'won');
  w.paystack.disputes.resend(d.id, 'charge.dispute.resolve');
  await w.paystack.deliveriesDone();
  const bodies = (await told(row.gateway_reference)).map((r) => JSON.parse(r.body));
  expect(bodies.map((b) => [b.sequence, b.event, b.status])).toEqual([
    [1, 'dispute.opened', 'needs_response'],
    [2, 'dispute.status_changed', 'under_review'],
    [3, 'dispute.status_changed', 'won'],
  ]);
  expect(bodies[2]).toMatchObject({ debited_amount: 0, resolution: 'declined' });
  expect(bodies[2].closed_at).not.toBeNull();
}, 60_000);

it('the deadline near: told once with the reminder e-mail, never before the lead, never for an answered dispute', async () => {
  const { tx } = await paid();
  const d = w.paystack.disputes.open(tx);
  const row = await inStatus(d.id, 'needs_response');
  const deadline = row.deadline_at.getTime();
  await w.svc.services.disputes.remind(new Date(deadline - 5 * 3_600_000));
  expect((await told(row.gateway_reference)).map((r) => JSON.parse(r.body).event)).toEqual(['dispute.opened']);
  await w.svc.services.disputes.remind(new Date(deadline - 3_600_000));
  await w.svc.services.disputes.remind(new Date(deadline - 1_800_000));
  const bodies = (await told(row.gateway_reference)).map((r) => JSON.parse(r.body));
  expect(bodies.map((b) => [b.sequence, b.event, b.status])).toEqual([[1, 'dispute.opened', 'needs_response'], [2, 'dispute.deadline_near', 'needs_response']]);
  expect(await db().one<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE subject LIKE $1', [`Reminder: dispute ${row.gateway_reference}%`])).toEqual({ n: 1 });

  const { tx: other } = await paid();
  const answered = w.paystack.disputes.open(other);
  const r2 = await inStatus(answered.id, 'needs_response');
  w.paystack.disputes.contest(answered.id);
  await w.svc.services.disputes.poll();
  await inStatus(answered.id, 'under_review');
  await w.svc.services.disputes.remind(new Date(r2.deadline_at.getTime() - 3_600_000));
  expect((await told(r2.gateway_reference)).map((r) => JSON.parse(r.body).event)).toEqual(['dispute.opened', 'dispute.status_changed']);
}, 60_000);
