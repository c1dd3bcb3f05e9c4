// Proves the BTCPay transport against the fake over real HTTP: invoices, lookup by our reference, checkout and the way back, confirmations, under/overpayment, expiry, signed webhooks with redeliveries, outages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BtcpayClient } from '../../../src/processors/btcpay/client';
import { observe, readWebhook, signatureValid } from '../../../src/processors/btcpay/transformers';
import type { InvoiceOrder } from '../../../src/processors/btcpay/transformers';
import { FakeBtcpay } from '../../fakes/btcpay';

let fake: FakeBtcpay;
let client: BtcpayClient;
let n = 0;

function order(o: Partial<InvoiceOrder> = {}): InvoiceOrder {
  n += 1;
  return { gatewayReference: `PCBTC${n}X${Date.now()}`, amountMinor: 2_500_000n, currency: 'UGX', returnUrl: 'https://pay.example/back/{InvoiceId}', expirationMinutes: 30, ...o };
}

async function created(o: InvoiceOrder) {
  const r = await client.createInvoice(o);
  if (r.kind !== 'invoice') throw new Error(`expected invoice, got ${r.kind}`);
  return r;
}

async function status(id: string) {
  const r = await client.invoice(id);
  if (r.kind !== 'invoice') throw new Error(`expected invoice, got ${r.kind}`);
  return observe(r);
}

/** The customer's wallet on the checkout page; the redirect is answered, never followed. */
async function payOnCheckout(link: string, pay: 'full' | 'part' | 'over') {
  const res = await fetch(link, { method: 'POST', body: new URLSearchParams({ pay }), redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

beforeAll(async () => {
  fake = new FakeBtcpay({ confirmAfterMs: null });
  await fake.start();
  client = new BtcpayClient({ serverUrl: fake.url, storeId: fake.storeId, apiKey: fake.apiKey, timeoutMs: 2000 });
});

afterAll(() => fake.stop());

afterEach(() => {
  fake.mode = 'up';
});

test('create, find by our reference, pay in full, return to us, confirm: Settled completes for the invoiced amount', async () => {
  const o = order();
  const inv = await created(o);
  expect(inv).toMatchObject({ status: 'New', amountMinor: 2_500_000n, currency: 'UGX', orderId: o.gatewayReference });
  expect(await client.invoicesFor(o.gatewayReference)).toMatchObject({ kind: 'list', invoices: [{ id: inv.id }] });
  expect(await client.invoicesFor('PCNOTHING')).toEqual({ kind: 'list', invoices: [] });

  const paid = await payOnCheckout(inv.checkoutLink, 'full');
  expect(paid).toMatchObject({ status: 302, location: `https://pay.example/back/${inv.id}` });
  expect(await status(inv.id)).toMatchObject({ status: 'PENDING', vendorStatus: 'Processing/None' });
  fake.confirm(inv.id);
  expect(await status(inv.id)).toMatchObject({ status: 'COMPLETED', vendorStatus: 'Settled/None', amountMinor: 2_500_000n });
});

test('overpaid completes for the invoiced amount; underpaid then expired fails; paid late stays pending until marked', async () => {
  const over = await created(order());
  await payOnCheckout(over.checkoutLink, 'over');
  fake.confirm(over.id);
  expect(await status(over.id)).toMatchObject({ status: 'COMPLETED', vendorStatus: 'Settled/PaidOver', amountMinor: 2_500_000n });

  const under = await created(order());
  const part = await payOnCheckout(under.checkoutLink, 'part');
  expect(part.text).toContain('Paid so far: 12500.00 UGX');
  expect(await status(under.id)).toMatchObject({ status: 'PENDING', vendorStatus: 'New/PaidPartial' });
  fake.expire(under.id);
  expect(await status(under.id)).toMatchObject({ status: 'FAILED', vendorStatus: 'Expired/PaidPartial' });

  const late = await created(order());
  fake.expire(late.id);
  expect(await status(late.id)).toMatchObject({ status: 'PENDING', vendorStatus: 'Expired/None' });
  fake.pay(late.id, 2_500_000);
  expect(await status(late.id)).toMatchObject({ status: 'PENDING', vendorStatus: 'Expired/PaidLate' });
  fake.mark(late.id, 'Settled');
  expect(await status(late.id)).toMatchObject({ status: 'COMPLETED', vendorStatus: 'Settled/Marked' });
});

test('unconfirmed in time is Invalid: failed', async () => {
  const inv = await created(order());
  await payOnCheckout(inv.checkoutLink, 'full');
  fake.failConfirmations(inv.id);
  expect(await status(inv.id)).toMatchObject({ status: 'FAILED', vendorStatus: 'Invalid/None' });
});

test('an invoice expires by itself after expirationMinutes', async () => {
  // our requests ask for whole minutes; a fraction here keeps the test short
  const res = await fetch(`${fake.url}/api/v1/stores/${fake.storeId}/invoices`, {
    method: 'POST',
    headers: { authorization: `token ${fake.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '10.00', currency: 'USD', checkout: { expirationMinutes: 0.005 } }),
  });
  const short = (await res.json()) as { id: string };
  expect(await status(short.id)).toMatchObject({ vendorStatus: 'New/None' });
  await waitFor(async () => (await status(short.id)).vendorStatus === 'Expired/None');
});

test('bad input, a wrong key, another store and an unknown invoice are refused, not failures', async () => {
  expect(await client.createInvoice(order({ amountMinor: 0n }))).toEqual({ kind: 'refused', message: 'amount: Amount should be greater than 0' });
  const stranger = new BtcpayClient({ serverUrl: fake.url, storeId: fake.storeId, apiKey: 'wrong', timeoutMs: 2000 });
  expect(await stranger.createInvoice(order())).toEqual({ kind: 'refused', message: 'Authentication is required for accessing this endpoint' });
  const otherStore = new BtcpayClient({ serverUrl: fake.url, storeId: 'another', apiKey: fake.apiKey, timeoutMs: 2000 });
  expect((await otherStore.createInvoice(order())).kind).toBe('refused');
  expect(await client.invoice('nosuchinvoice')).toEqual({ kind: 'not_found' });
});

test('an outage is unreachable or unknown, never a failure', async () => {
  fake.mode = 'reset';
  expect((await client.createInvoice(order())).kind).toBe('unreachable');
  fake.mode = 'error';
  expect((await client.invoice('x')).kind).toBe('unknown');
  fake.mode = 'hang';
  const slow = new BtcpayClient({ serverUrl: fake.url, storeId: fake.storeId, apiKey: fake.apiKey, timeoutMs: 200 });
  expect((await slow.invoicesFor('PCX')).kind).toBe('unreachable');
});

test('webhooks: indented bodies signed with BTCPay-Sig, redelivered on 5xx as marked redeliveries, not on 4xx', async () => {
  const received: { sig: string; raw: Buffer }[] = [];
  let answers = [502, 200, 400];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ sig: String(req.headers['btcpay-sig']), raw: Buffer.concat(chunks) });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  fake.webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/btcpay`;
  try {
    const inv = await created(order());
    fake.expire(inv.id);
    await waitFor(async () => received.length === 2);
    const [first, again] = received.map((r) => JSON.parse(r.raw.toString()));
    expect(first).toMatchObject({ type: 'InvoiceExpired', invoiceId: inv.id, storeId: fake.storeId, isRedelivery: false, partiallyPaid: false });
    expect(again).toMatchObject({ type: 'InvoiceExpired', isRedelivery: true, originalDeliveryId: first.deliveryId });
    expect(received[0].raw.toString()).toContain('\n  "type"');
    expect(received.every((r) => signatureValid(r.raw, r.sig, fake.webhookSecret))).toBe(true);
    expect(readWebhook(received[0].raw)).toMatchObject({ orderId: expect.stringMatching(/^PCBTC/) });

    const other = await created(order());
    fake.event(fake.invoice(other.id)!, 'InvoiceSettled', { overPaid: false, manuallyMarked: false }, { forged: true });
    await fake.deliveriesDone();
    expect(received).toHaveLength(3); // a 400 is not redelivered
    expect(signatureValid(received[2].raw, received[2].sig, fake.webhookSecret)).toBe(false);
  } finally {
    fake.webhookUrl = null;
    await new Promise((r) => receiver.close(r));
  }
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
