// Proves a declined Paystack checkout the customer never retries ends at the collection's expiry as EXPIRED naming the decline (never FAILED while still payable), and that paying on the same checkout afterwards is a late completion, credited once.
import { balance, requestPayment, startHostedWorld, stateOf } from '../../helpers/hosted';
import type { HostedWorld } from '../../helpers/hosted';
import { eventually } from '../../helpers/notify-fixtures';

const TTL_SECONDS = 3;
let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld({ PENDING_TTL_SECONDS: String(TTL_SECONDS) });
}, 120_000);

afterAll(() => w?.close());

async function post(url: string): Promise<{ location: string | null; html: string }> {
  const res = await fetch(url, { method: 'POST', redirect: 'manual' });
  return { location: res.headers.get('location'), html: await res.text() };
}

test('declined and left: never FAILED while payable, EXPIRED at the expiry with the decline in its message; a payment on the same checkout later completes it late', async () => {
  w.paystack.autoWebhooks = false;
  const before = await balance(w, 'NGN');
  const p = await requestPayment(w, 'CARD');
  const opened = await fetch(p.payment_url, { redirect: 'manual' });
  const checkout = opened.headers.get('location')!;
  const challenge = new URL((await post(`${checkout}/pay`)).location!, checkout).toString();
  expect((await post(`${challenge}/fail`)).html).toContain('Try again');

  await eventually(async () => (await stateOf(w, p.gateway_reference)).status !== 'PENDING', 15_000, 'the expiry');
  expect(await stateOf(w, p.gateway_reference)).toMatchObject({
    status: 'EXPIRED', message: 'Payment not completed in time (last attempt: The payment was declined: Declined)', journals: 0,
  });
  await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
  expect((await stateOf(w, p.gateway_reference)).hooks).toEqual(['EXPIRED']);

  // the customer tries again after all: Paystack's charge.success prompts the query; a late completion, credited once
  w.paystack.autoWebhooks = true;
  await post(`${new URL((await post(`${checkout}/pay`)).location!, checkout)}/authenticate`);
  await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 2, 15_000, 'the late completion');
  expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['EXPIRED', 'COMPLETED'] });
  expect((await w.svc.admin.get(`/v1/admin/collections/${p.gateway_reference}`)).body.data.late_completed_at).toEqual(expect.any(String));
  expect(await balance(w, 'NGN')).toBe(before + 25000);
  expect(w.svc.logs.some((l) => l.includes('late completion') && l.includes(p.gateway_reference))).toBe(true);
});
