// Proves the SDK's dispute calls against the real service and the fake Paystack over real HTTP: a dispute
// opened at Paystack is listed and read through the SDK; submitDisputeEvidence contests it (under review)
// and a second answer, acceptDispute, is refused with a typed PayCollectError and sends nothing more; a
// request the contract refuses throws VALIDATION_ERROR and changes nothing.
import { createPayCollect, iterate, PayCollectError, unwrap } from '../../sdk/src';
import type { PayCollect } from '../../sdk/src';
import { startHostedWorld } from '../helpers/hosted';
import type { HostedWorld } from '../helpers/hosted';
import { cardPaid, disputeIn } from '../helpers/hosted-disputes';
import { expectOk } from '../helpers/merchants';

let w: HostedWorld;
let pay: PayCollect;

beforeAll(async () => {
  w = await startHostedWorld({ PROCESSOR_CHECK_SCHEDULE: '10m' });
  const token = expectOk<{ api_key: string; api_secret: string }>(
    await w.svc.admin.post(`/v1/admin/businesses/${w.businessId}/api-tokens`, { notification_email: 'sdk@lagosbooks.example', webhook_url: w.hooks.url, webhook_hash: 'whsec-sdk-0123456789abcdef' }), 'createApiToken');
  pay = createPayCollect({ baseUrl: w.svc.url, apiKey: token.api_key, apiSecret: token.api_secret });
}, 180_000);

afterAll(() => w?.close());

it('lists, reads and contests a dispute; a second answer and a malformed one are typed errors that send nothing', async () => {
  const { collection, tx } = await cardPaid(w);
  const d = w.paystack.disputes.open(tx);
  const row = await disputeIn(w, d.id, 'needs_response');

  const { data: one } = await unwrap(pay.getDispute(row.gateway_reference));
  expect(one).toMatchObject({ gateway_reference: row.gateway_reference, collection_gateway_reference: collection, status: 'needs_response', amount: 25000 });
  const listed = [];
  for await (const x of iterate((cursor) => unwrap(pay.listDisputes({ status: 'needs_response', per_page: 1, cursor })))) listed.push(x);
  expect(listed).toContainEqual(one);

  const resolves = () => w.paystack.calls.filter((c) => c.method === 'PUT' && c.path === `/dispute/${d.id}/resolve`).length;
  const malformed = await unwrap(pay.submitDisputeEvidence(row.gateway_reference, {
    customer_email: 'chinedu.eze@example.com', customer_name: 'Chinedu Eze', customer_phone: '2348012345678', service_details: 'Two textbooks',
    message: 'Collected in person', delivery_date: '2025-13-01',
  })).catch((e: unknown) => e);
  expect(malformed).toBeInstanceOf(PayCollectError);
  expect(malformed).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  expect(resolves()).toBe(0);

  const { data: contested } = await unwrap(pay.submitDisputeEvidence(row.gateway_reference, {
    customer_email: 'chinedu.eze@example.com', customer_name: 'Chinedu Eze', customer_phone: '2348012345678', service_details: 'Two textbooks',
    message: 'Collected in person',
  }));
  expect(contested).toMatchObject({ status: 'under_review', resolution: 'declined' });
  expect(resolves()).toBe(1);

  const again = await unwrap(pay.acceptDispute(row.gateway_reference, { message: 'We accept after all' })).catch((e: unknown) => e);
  expect(again).toMatchObject({ status: 400, code: 'INVALID_STATE' });
  expect(resolves()).toBe(1);
  expect((await unwrap(pay.getDispute(row.gateway_reference))).data).toEqual(contested);
}, 60_000);
