// Proves the Paystack transport against the fake over real HTTP: initialise, duplicate refusal, checkout with 3-D Secure and the way back, verify, direct charge, signed webhooks with retries, outages and timeouts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaystackClient } from '../../../src/processors/paystack/client';
import { observe, signatureValid } from '../../../src/processors/paystack/transformers';
import type { PaystackPayment } from '../../../src/processors/paystack/transformers';
import { FakePaystack, NO_3DS_CARD, PIN_CARD } from '../../fakes/paystack';
import { freePort } from '../../helpers/notify-fixtures';

let fake: FakePaystack;
let client: PaystackClient;
let n = 0;

function payment(o: Partial<PaystackPayment> = {}): PaystackPayment {
  n += 1;
  return { reference: `PCTEST${n}X${Date.now()}`, amountMinor: 1_050_00n, currency: 'NGN', email: 'jane@shop.example', method: 'CARD', returnUrl: 'https://shop.example/back', ...o };
}

const card = (number: string) => ({
  full_name: 'Jane Doe', card_number: number, expiry_month: '12', expiry_year: '2030', cvv: '123',
  billing_address: '1 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
});

/** A browser's step: POST a checkout form, answer the redirect target (never followed). */
async function press(url: string): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url, { method: 'POST', redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

beforeAll(async () => {
  fake = new FakePaystack();
  await fake.start();
  client = new PaystackClient({ baseUrl: fake.url, secretKey: fake.secretKey, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

afterEach(() => {
  fake.mode = 'up';
});

test('initialise, pay with 3-D Secure on the checkout, come back with the reference, verify success', async () => {
  const p = payment();
  const created = await client.initialize(p);
  if (created.kind !== 'created') throw new Error(`expected created, got ${created.kind}`);
  expect(created.authorizationUrl).toMatch(new RegExp(`^${fake.url}/checkout/`));
  expect(fake.calls.at(-1)).toMatchObject({ method: 'POST', path: '/transaction/initialize', status: 200, body: { amount: 105000, currency: 'NGN', reference: p.reference } });

  const before = await client.verify(p.reference);
  expect(before.kind === 'found' && observe(before).status).toBe('PENDING');

  const page = await (await fetch(created.authorizationUrl)).text();
  expect(page).toContain('NGN 1050.00');
  const pay = await press(`${created.authorizationUrl}/pay`);
  expect(pay).toMatchObject({ status: 302, location: `/3ds/${created.accessCode}` });
  const back = await press(`${fake.url}/3ds/${created.accessCode}/authenticate`);
  const location = new URL(back.location!);
  expect(`${location.origin}${location.pathname}`).toBe('https://shop.example/back');
  expect(location.searchParams.get('reference')).toBe(p.reference);
  expect(location.searchParams.get('trxref')).toBe(p.reference);

  const after = await client.verify(p.reference);
  if (after.kind !== 'found') throw new Error('expected found');
  expect(observe(after)).toMatchObject({ status: 'COMPLETED', amountMinor: 105000n, currency: 'NGN', unmapped: false });
});

test('a reused reference is refused, and nothing about the first transaction changes', async () => {
  const p = payment();
  expect((await client.initialize(p)).kind).toBe('created');
  expect(await client.initialize({ ...p, amountMinor: 1n })).toEqual({ kind: 'duplicate' });
  expect(fake.transaction(p.reference)?.amount).toBe(105000);
});

test('3-D Secure failure and abandoning the checkout: failed, and abandoned (still payable) with cancel_action', async () => {
  const failed = payment();
  const a = await client.initialize(failed);
  if (a.kind !== 'created') throw new Error('expected created');
  const declined = await press(`${fake.url}/3ds/${a.accessCode}/fail`);
  expect(declined.text).toContain('Return to merchant');
  const v = await client.verify(failed.reference);
  expect(v.kind === 'found' && observe(v)).toMatchObject({ status: 'FAILED', message: 'The payment was declined: Declined' });

  const left = payment({ method: 'BANK' });
  const b = await client.initialize(left);
  if (b.kind !== 'created') throw new Error('expected created');
  expect(await press(`${b.authorizationUrl}/cancel`)).toMatchObject({ status: 302, location: 'https://shop.example/back' });
  const w = await client.verify(left.reference);
  expect(w.kind === 'found' && w.vendorStatus).toBe('abandoned');
});

test('bad input and a wrong key are refused with Paystack messages', async () => {
  expect(await client.initialize(payment({ email: 'nobody' }))).toEqual({ kind: 'refused', message: 'Invalid Email Address Passed' });
  expect(await client.initialize(payment({ currency: 'UGX' }))).toEqual({ kind: 'refused', message: 'Currency not supported by merchant' });
  const stranger = new PaystackClient({ baseUrl: fake.url, secretKey: 'sk_test_wrong', timeoutMs: 2000 });
  expect(await stranger.initialize(payment())).toEqual({ kind: 'refused', message: 'Invalid key' });
  expect(await stranger.verify('PCANY')).toEqual({ kind: 'refused', message: 'Invalid key' });
  expect(await client.verify('PCNOSUCHREFERENCE')).toEqual({ kind: 'not_found' });
});

test('direct card: 3-D Secure URL, a card with no further step, a card that wants a PIN; the fake keeps no card number', async () => {
  const p = payment();
  const charged = await client.charge(p, card('4000000000003006'));
  if (charged.kind !== 'authenticate') throw new Error(`expected authenticate, got ${charged.kind}`);
  const back = await press(`${charged.url}/authenticate`);
  expect(new URL(back.location!).searchParams.get('reference')).toBe(p.reference);
  const v = await client.verify(p.reference);
  expect(v.kind === 'found' && v.vendorStatus).toBe('success');

  expect(await client.charge(payment(), card(NO_3DS_CARD))).toMatchObject({ kind: 'reported', vendorStatus: 'success' });
  expect(await client.charge(payment(), card(PIN_CARD))).toEqual({ kind: 'other_step', step: 'send_pin' });
  expect(JSON.stringify(fake.calls)).not.toContain('4000000000003006');
});

test('an outage is unreachable, never a failure: refused and reset connections, 503s, and an answer that never comes', async () => {
  const nobody = new PaystackClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, secretKey: fake.secretKey, timeoutMs: 2000 });
  expect(await nobody.initialize(payment())).toMatchObject({ kind: 'unreachable', sent: false });
  fake.mode = 'reset';
  expect(await client.initialize(payment())).toMatchObject({ kind: 'unreachable', sent: true });
  fake.mode = 'error';
  expect((await client.verify('PCANY')).kind).toBe('unknown');
  fake.mode = 'hang';
  const slow = new PaystackClient({ baseUrl: fake.url, secretKey: fake.secretKey, timeoutMs: 200 });
  expect(await slow.verify('PCANY')).toMatchObject({ kind: 'unreachable', sent: true });
});

test('charge.success webhooks are signed with the secret key and retried until answered 200', async () => {
  const received: { signature: string; raw: Buffer }[] = [];
  let answers = [500, 503, 200];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ signature: String(req.headers['x-paystack-signature']), raw: Buffer.concat(chunks) });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  fake.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const p = payment({ method: 'BANK' });
    const created = await client.initialize(p);
    if (created.kind !== 'created') throw new Error('expected created');
    await press(`${created.authorizationUrl}/pay`);
    await waitFor(() => received.length === 3);
    await fake.deliveriesDone();
    expect(received.every((r) => signatureValid(r.raw, r.signature, fake.secretKey))).toBe(true);
    expect(JSON.parse(received[0].raw.toString())).toMatchObject({ event: 'charge.success', data: { reference: p.reference, status: 'success' } });
    expect(fake.deliveries.filter((d) => d.subject === p.reference).map((d) => d.status)).toEqual([500, 503, 200]);

    answers = [200];
    fake.sendWebhook(p.reference, { forged: true });
    await waitFor(() => received.length === 4);
    expect(signatureValid(received[3].raw, received[3].signature, fake.secretKey)).toBe(false);
  } finally {
    fake.webhookUrl = null;
    await new Promise((r) => receiver.close(r));
  }
});

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
