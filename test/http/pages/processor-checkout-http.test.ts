// Proves the live hosted-checkout flow over plain HTTP against fake Paystack and BTCPay servers: payment_url starts the payment once and redirects, the return is confirmed with the processor (never the query string), signed webhooks only prompt a query (forged ones refused), outages change nothing, a declined checkout stays payable (the not-yet page says the attempt was declined) and a success after our final word is held, never lost, direct cards are charged once, never kept and answered with their outcome, and crypto completes only when settled.
import { encryptCard } from '../../../scripts/encrypt-card';
import { signature as paystackSignature } from '../../../src/processors/paystack/transformers';
import { DECLINED_CARD, NO_3DS_CARD, PIN_CARD } from '../../fakes/paystack';
import { SHOP, balance, requestPayment, startHostedWorld, stateOf } from '../../helpers/hosted';
import type { HostedWorld, Payment } from '../../helpers/hosted';
import { eventually } from '../../helpers/notify-fixtures';

let w: HostedWorld;

beforeAll(async () => {
  w = await startHostedWorld();
}, 120_000);

afterAll(() => w?.close());

afterEach(() => {
  w.paystack.mode = 'up';
  w.paystack.autoWebhooks = true;
});

/** One browser step without following redirects. */
async function get(url: string): Promise<{ status: number; location: string | null; html: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

async function post(url: string, form: Record<string, string> = {}): Promise<{ status: number; location: string | null; html: string }> {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

/** Opens payment_url: the processor's page it redirects to. */
async function open(p: Payment): Promise<string> {
  const r = await get(p.payment_url);
  if (r.status !== 303 || !r.location) throw new Error(`payment_url answered ${r.status}: ${r.html.slice(0, 200)}`);
  return r.location;
}

/** Pays on the fake Paystack checkout through 3-D Secure: where Paystack sends the customer back. */
async function payWith3ds(checkout: string, outcome: 'authenticate' | 'fail' = 'authenticate'): Promise<string | null> {
  const pay = await post(`${checkout}/pay`);
  const challenge = new URL(pay.location!, checkout).toString();
  const done = await post(`${challenge}/${outcome}`);
  return done.location ?? /href="([^"]+)">Return to merchant/.exec(done.html)?.[1]?.replace(/&amp;/g, '&') ?? null;
}

/** A direct card payment: request-to-pay with the card encrypted to the service's key. */
async function direct(number: string): Promise<Payment> {
  const key = (await w.client.get('/v1/public-key')).body.data.public_key;
  const encrypted = encryptCard(key, {
    full_name: 'Adaeze Okafor', card_number: number, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 2), cvv: '123',
    billing_address: '3 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
  });
  return requestPayment(w, 'CARD', { encrypted_card: encrypted });
}

function status(location: string | null): string | null {
  return location ? new URL(location).searchParams.get('status') : null;
}

describe('Paystack hosted checkout', () => {
  test('payment_url starts the payment once, 3-D Secure, back through the return URL to redirect_url; wallet, webhook and operator view agree', async () => {
    const before = await balance(w, 'NGN');
    const p = await requestPayment(w, 'CARD');
    expect(p).toMatchObject({ transaction_status: 'PENDING', payment_url: expect.stringContaining(`/pay/${p.gateway_reference}?token=`) });
    const checkout = await open(p);
    expect(checkout).toMatch(new RegExp(`^${w.paystack.url}/checkout/`));
    expect(await open(p)).toBe(checkout);
    const inits = w.paystack.calls.filter((c) => c.path === '/transaction/initialize' && (c.body as { reference: string }).reference === p.gateway_reference);
    expect(inits).toHaveLength(1);
    expect(inits[0].body).toMatchObject({ amount: 2_500_000, currency: 'NGN', channels: ['card'], email: 'adaeze@customer.example' });

    const back = await payWith3ds(checkout);
    expect(back).toContain(`/pay/${p.gateway_reference}/return?token=`);
    const landed = await get(back!);
    expect(landed.status).toBe(303);
    expect(landed.location).toMatch(new RegExp(`^${SHOP}/orders/\\d+/done\\?`));
    expect(status(landed.location)).toBe('COMPLETED');

    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['COMPLETED'] });
    expect(await balance(w, 'NGN')).toBe(before + 25000);
    const operator = await w.svc.admin.get(`/v1/admin/collections/${p.gateway_reference}`);
    expect(operator.body.data).toMatchObject({ transaction_status: 'COMPLETED', institution_name: 'Paystack' });
    expect(operator.body.data.checkout).toEqual({ vendor_reference: (inits[0].body as { reference: string }).reference, url: checkout, attempts: 1 });
    // Paystack's own webhook came too: a prompt to verify, which credits nothing twice.
    await w.paystack.deliveriesDone();
    expect((await stateOf(w, p.gateway_reference)).journals).toBe(1);
  });

  test('a webhook before the customer returns completes it; the return then only reads it; credited once', async () => {
    const p = await requestPayment(w, 'BANK');
    const checkout = await open(p);
    const paid = await post(`${checkout}/pay`);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'COMPLETED');
    const landed = await get(paid.location!);
    expect(status(landed.location)).toBe('COMPLETED');
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ journals: 1, hooks: ['COMPLETED'] });
  });

  test('a webhook after the return (and again, duplicated) changes nothing', async () => {
    w.paystack.autoWebhooks = false;
    const p = await requestPayment(w, 'CARD');
    const back = await payWith3ds(await open(p));
    expect(status((await get(back!)).location)).toBe('COMPLETED');
    w.paystack.sendWebhook(p.gateway_reference);
    w.paystack.sendWebhook(p.gateway_reference);
    await w.paystack.deliveriesDone();
    expect(w.paystack.deliveries.filter((d) => d.subject === p.gateway_reference).map((d) => d.status)).toEqual([200, 200]);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['COMPLETED'] });
  });

  test('a forged webhook is refused and changes nothing; a signed one that lies is only a prompt, and verify says no', async () => {
    const p = await requestPayment(w, 'CARD');
    await open(p); // the checkout exists at Paystack; the customer has not paid
    const hook = (raw: string, headers: Record<string, string> = {}, mid = w.mids.card, type = 'paystack') =>
      w.svc.anon.post(`/callbacks/${type}/mids/${mid}`, undefined, { raw, headers: { 'content-type': 'application/json', ...headers } });
    const lie = JSON.stringify({ event: 'charge.success', data: { reference: p.gateway_reference, status: 'success', amount: 2_500_000, currency: 'NGN' } });

    expect((await hook(lie)).status).toBe(401);
    expect((await hook(lie, { 'x-paystack-signature': paystackSignature(Buffer.from(lie), 'sk_test_someone_else') })).status).toBe(401);
    const reSerialised = JSON.stringify(JSON.parse(lie), null, 1);
    expect((await hook(reSerialised, { 'x-paystack-signature': paystackSignature(Buffer.from(lie), w.paystack.secretKey) })).status).toBe(401);
    expect((await hook(lie, {}, 999999)).status).toBe(404);
    expect((await hook(lie, {}, w.mids.card, 'btcpay')).status).toBe(404);
    w.paystack.sendWebhook(p.gateway_reference, { forged: true });
    await w.paystack.deliveriesDone();
    expect(w.paystack.deliveries.filter((d) => d.subject === p.gateway_reference).map((d) => d.status)).toEqual([401, 401, 401, 401]);

    const signed = await hook(lie, { 'x-paystack-signature': paystackSignature(Buffer.from(lie), w.paystack.secretKey) });
    expect(signed.status).toBe(200);
    await eventually(async () => (await w.svc.services.db.one<{ checks: number }>(
      'SELECT checks FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [p.gateway_reference],
    )).checks >= 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
  });

  test('a tampered return URL changes nothing: the query string is not read, the token is checked', async () => {
    const p = await requestPayment(w, 'CARD');
    await open(p);
    const token = new URL(p.payment_url).searchParams.get('token')!;
    const base = `${w.svc.url}/pay/${p.gateway_reference}/return`;
    const forged = await get(`${base}?token=${token}&trxref=${p.gateway_reference}&reference=${p.gateway_reference}&status=success`);
    expect(forged.status).toBe(200);
    expect(forged.html).toContain('not confirmed yet');
    expect(forged.html).toContain('If you paid, the confirmation will follow shortly');
    expect(forged.html).not.toContain('declined');
    expect((await get(`${base}?token=not-the-token&status=COMPLETED`)).status).toBe(404);
    expect((await get(`${w.svc.url}/pay/PCNOSUCHPAYMENT/return?token=${token}`)).status).toBe(404);
    const approve = await post(`${w.svc.url}/pay/${p.gateway_reference}`, { token, action: 'approve' });
    expect(approve.status).toBe(403);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
  });

  test('abandoning the checkout: still payable, PENDING, nothing credited', async () => {
    const left = await requestPayment(w, 'BANK');
    const checkout = await open(left);
    const cancelled = await post(`${checkout}/cancel`);
    const page = await get(cancelled.location!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Go back to the payment');
    expect(await stateOf(w, left.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0 });
  });

  test('declined, then "Try again" on the same checkout pays: never FAILED, credited once, the merchant hears COMPLETED only', async () => {
    const before = await balance(w, 'NGN');
    w.paystack.autoWebhooks = false;
    const p = await requestPayment(w, 'CARD');
    const checkout = await open(p);
    const declined = await post(`${checkout}/pay`).then((r) => post(`${new URL(r.location!, checkout)}/fail`));
    expect(declined.html).toContain('Try again');
    expect(w.paystack.transaction(p.gateway_reference)?.status).toBe('failed');
    // the customer comes back to us after the decline: Paystack is asked, says `failed`, and the checkout stays payable
    const back = /href="([^"]+)">Return to merchant/.exec(declined.html)![1].replace(/&amp;/g, '&');
    const page = await get(back);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Go back to the payment');
    // and says the attempt was declined, in the processor's words, and how to go on
    expect(page.html).toContain('Your last attempt was declined (the payment service said: The payment was declined: Declined)');
    expect(page.html).not.toContain('If you paid, the confirmation will follow shortly');
    const verified = () => w.paystack.calls.filter((c) => c.path === `/transaction/verify/${p.gateway_reference}`).length;
    expect(verified()).toBeGreaterThanOrEqual(1);
    // the scheduled checks see `failed` too and leave it PENDING
    const seen = verified();
    await eventually(() => verified() >= seen + 2);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
    expect(await open(p)).toBe(checkout);

    // "Try again": paid on the same checkout; Paystack's signed charge.success prompts the query that credits it
    w.paystack.autoWebhooks = true;
    const challenge = await post(`${checkout}/pay`);
    await post(`${new URL(challenge.location!, checkout)}/authenticate`);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['COMPLETED'] });
    expect(await balance(w, 'NGN')).toBe(before + 25000);
    await w.paystack.deliveriesDone();
    expect((await stateOf(w, p.gateway_reference)).journals).toBe(1);
  });

  test('a success Paystack confirms after the collection FAILED is held for the operator with an error logged, never lost; resolved, it is a late completion credited once', async () => {
    w.paystack.autoWebhooks = false;
    const p = await direct('4000000000003006');
    const challenge = await open(p);
    const failed = await post(`${challenge}/fail`);
    expect(failed.html).not.toContain('Try again');
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'FAILED', journals: 0, hooks: ['FAILED'] });
    const before = await balance(w, 'NGN');

    // Paystack later says the customer paid (a success after its own decline): its signed webhook is a prompt
    const t = w.paystack.transaction(p.gateway_reference)!;
    t.status = 'success';
    t.gatewayResponse = 'Successful';
    w.paystack.sendWebhook(p.gateway_reference);
    const held = async () => (await w.svc.admin.get(`/v1/admin/collections/${p.gateway_reference}`)).body.data;
    await eventually(async () => (await held()).processor_request?.state === 'held');
    expect(await held()).toMatchObject({
      transaction_status: 'FAILED',
      processor_request: { state: 'held', held_reason: 'the processor confirmed payment of a collection already FAILED' },
    });
    expect(w.svc.logs.some((l) => l.includes('payment held for the operator') && l.includes(p.gateway_reference))).toBe(true);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'FAILED', journals: 0, hooks: ['FAILED'] });
    expect(await balance(w, 'NGN')).toBe(before);
    // the webhook again changes nothing more: still held, nothing credited
    w.paystack.sendWebhook(p.gateway_reference);
    await w.paystack.deliveriesDone();
    expect((await held()).processor_request.state).toBe('held');

    const resolved = await w.svc.admin.post(`/v1/admin/collections/${p.gateway_reference}/resolve-held`, { outcome: 'COMPLETED', note: 'Paystack shows the charge paid (ticket 5521)' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ transaction_status: 'COMPLETED', late_completed_at: expect.any(String), processor_request: { state: 'settled', resolution: { outcome: 'COMPLETED' } } });
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 2);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1, hooks: ['FAILED', 'COMPLETED'] });
    expect(await balance(w, 'NGN')).toBe(before + 25000);
  });

  test('a held late success resolved FAILED keeps the collection as the merchant knows it and credits nothing', async () => {
    w.paystack.autoWebhooks = false;
    const p = await direct('4000000000003006');
    await post(`${await open(p)}/fail`);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'FAILED');
    const t = w.paystack.transaction(p.gateway_reference)!;
    t.status = 'success';
    w.paystack.sendWebhook(p.gateway_reference);
    await eventually(async () => (await w.svc.admin.get(`/v1/admin/collections/${p.gateway_reference}`)).body.data.processor_request?.state === 'held');
    const resolved = await w.svc.admin.post(`/v1/admin/collections/${p.gateway_reference}/resolve-held`, { outcome: 'FAILED', note: 'Refunded at Paystack (ticket 5522)' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.data).toMatchObject({ transaction_status: 'FAILED', late_completed_at: null, processor_request: { state: 'settled', resolution: { outcome: 'FAILED' } } });
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'FAILED', journals: 0, hooks: ['FAILED'] });
  });

  test('an unreachable processor while the customer waits: a plain page with a retry, nothing FAILED, then it works', async () => {
    const p = await requestPayment(w, 'CARD');
    w.paystack.mode = 'reset';
    const down = await get(p.payment_url);
    expect(down.status).toBe(503);
    expect(down.html).toContain('Try again');
    w.paystack.mode = 'hang';
    expect((await get(p.payment_url)).status).toBe(503);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0, hooks: [] });
    w.paystack.mode = 'up';
    const checkout = await open(p);
    expect(checkout).toMatch(new RegExp(`^${w.paystack.url}/checkout/`));
    expect(status((await get((await payWith3ds(checkout))!)).location)).toBe('COMPLETED');
  });

  test('openings at once share one checkout: Paystack is asked once', async () => {
    const p = await requestPayment(w, 'CARD');
    const answers = await Promise.all([get(p.payment_url), get(p.payment_url), get(p.payment_url)]);
    for (const a of answers) {
      if (a.status === 303) expect(a.location).toMatch(new RegExp(`^${w.paystack.url}/checkout/`));
      else expect(a).toMatchObject({ status: 200, html: expect.stringContaining('Preparing your payment') });
    }
    const checkout = await open(p);
    expect(answers.filter((a) => a.status === 303).every((a) => a.location === checkout)).toBe(true);
    expect(w.paystack.calls.filter((c) => c.path === '/transaction/initialize' && (c.body as { reference: string }).reference.startsWith(p.gateway_reference))).toHaveLength(1);
  });

  test('an answer lost on the way: the next opening starts a new attempt (Paystack refuses a reused reference), and that one pays', async () => {
    const p = await requestPayment(w, 'CARD');
    w.paystack.mode = 'lose';
    expect((await get(p.payment_url)).status).toBe(503);
    w.paystack.mode = 'up';
    expect(w.paystack.transaction(p.gateway_reference)?.status).toBe('abandoned'); // made at Paystack, its link never seen
    const checkout = await open(p);
    const inits = w.paystack.calls.filter((c) => c.path === '/transaction/initialize' && (c.body as { reference: string }).reference.startsWith(p.gateway_reference));
    expect(inits.map((c) => (c.body as { reference: string }).reference)).toEqual([p.gateway_reference, `${p.gateway_reference}.2`]);
    expect(status((await get((await payWith3ds(checkout))!)).location)).toBe('COMPLETED');
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1 });
  });

  test('Paystack needs an email: refused at request time, nothing written', async () => {
    const res = await w.client.post('/v1/collections/request-to-pay', {
      currency: 'NGN', amount: 100, payment_method: 'BANK', account_number: '0123456789', redirect_url: `${SHOP}/x`, merchant_reference: `NOEMAIL-${Date.now()}`, narration: 'Order without email',
    });
    expect(res.status).toBe(400);
    expect(res.body.data).toEqual([{ field: 'account_email', message: expect.any(String) }]);
  });
});

describe('direct card through Paystack\'s charge API', () => {

  test('charged once server to server; payment_url leads to the 3-D Secure step; the card is kept nowhere', async () => {
    const pan = '4000000000003006';
    const p = await direct(pan);
    expect(p.transaction_status).toBe('PENDING');
    const charges = w.paystack.calls.filter((c) => c.path === '/charge' && (c.body as { reference: string }).reference === p.gateway_reference);
    expect(charges).toHaveLength(1);
    const challenge = await open(p);
    expect(challenge).toMatch(new RegExp(`^${w.paystack.url}/3ds/`));
    const done = await post(`${challenge}/authenticate`);
    expect(status((await get(done.location!)).location)).toBe('COMPLETED');
    expect(w.svc.logs.join('\n')).not.toContain(pan);
    const dump = await w.svc.services.db.one<{ t: string }>(
      `SELECT (SELECT json_agg(c) FROM collections c)::text || (SELECT json_agg(k) FROM checkouts k)::text || (SELECT json_agg(p) FROM processor_requests p)::text AS t`,
    );
    expect(dump.t).not.toContain(pan);
    expect(dump.t).not.toContain('"123"');
  });

  test('a card that wants a PIN is answered FAILED at once, never re-sent; a card with no further step is COMPLETED in the answer', async () => {
    const pin = await direct(PIN_CARD);
    expect(pin.transaction_status).toBe('FAILED');
    expect(await stateOf(w, pin.gateway_reference)).toMatchObject({ status: 'FAILED', message: expect.stringContaining('only 3-D Secure cards') });
    const noStep = await direct(NO_3DS_CARD);
    expect(noStep.transaction_status).toBe('COMPLETED');
    expect(await stateOf(w, noStep.gateway_reference)).toMatchObject({ status: 'COMPLETED', journals: 1 });
    expect(w.paystack.calls.filter((c) => c.path === '/charge' && [pin.gateway_reference, noStep.gateway_reference].includes((c.body as { reference: string }).reference))).toHaveLength(2);
  });

  test('a card the issuer declines is FAILED in this answer, as the merchant is told, with the decline in words; charged once', async () => {
    const p = await direct(DECLINED_CARD);
    expect(p.transaction_status).toBe('FAILED');
    const read = await w.client.get(`/v1/collections/${p.gateway_reference}`);
    expect(read.body.data).toMatchObject({ transaction_status: 'FAILED', message: 'The payment was declined: Declined' });
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 1);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'FAILED', journals: 0, hooks: ['FAILED'] });
    expect(w.paystack.calls.filter((c) => c.path === '/charge' && (c.body as { reference: string }).reference === p.gateway_reference)).toHaveLength(1);
  });

  test('a card processor that refuses connections fails the payment at once: the card is not kept to try again', async () => {
    await w.paystack.unplug();
    let p: Payment;
    try {
      p = await direct('4000000000003006');
    } finally {
      await w.paystack.plugIn();
    }
    expect(p.transaction_status).toBe('FAILED');
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'FAILED', message: 'The card processor could not be reached; nothing was charged', journals: 0 });
  });

  test('a connection broken during the charge leaves the outcome to reconciliation, never to a second charge', async () => {
    w.paystack.mode = 'reset';
    const p = await direct('4000000000003006');
    w.paystack.mode = 'up';
    expect(p.transaction_status).toBe('PENDING');
    const page = await get(p.payment_url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('not confirmed yet');
    await eventually(async () => (await w.svc.services.db.one<{ checks: number }>(
      'SELECT checks FROM processor_requests p JOIN collections c ON c.id = p.collection_id WHERE c.gateway_reference = $1', [p.gateway_reference],
    )).checks >= 2);
    expect(w.paystack.calls.filter((c) => c.path === '/charge' && (c.body as { reference: string }).reference === p.gateway_reference)).toHaveLength(0);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'PENDING', journals: 0 });
  });
});

describe('BTCPay Server crypto checkout', () => {
  test('pay in full: back while confirming (PENDING), then Settled completes it for the invoiced amount', async () => {
    const before = await balance(w, 'USD');
    const p = await requestPayment(w, 'CRYPTO');
    const invoice = await open(p);
    expect(invoice).toMatch(new RegExp(`^${w.btcpay.url}/i/`));
    expect(await open(p)).toBe(invoice);
    w.btcpay.confirmAfterMs = null; // the network confirms when the test says so
    const paid = await post(invoice, { pay: 'over' });
    const back = await get(paid.location!);
    expect(back.status).toBe(200);
    expect(back.html).toContain('not confirmed yet');
    w.btcpay.confirmAfterMs = 300;
    w.btcpay.confirm(new URL(invoice).pathname.split('/').pop()!);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'COMPLETED');
    expect(await balance(w, 'USD')).toBe(before + 12.5);
    const again = await get(paid.location!);
    expect(status(again.location)).toBe('COMPLETED');
  });

  test('paid after expiry: EXPIRED, held; the merchant marks it settled in BTCPay: a late completion, credited once', async () => {
    const p = await requestPayment(w, 'CRYPTO');
    const invoice = await open(p);
    const id = new URL(invoice).pathname.split('/').pop()!;
    w.btcpay.expire(id);
    // our deadline passes too (the invoice was made to expire with the collection)
    await w.svc.services.db.none(
      `WITH c AS (UPDATE collections SET expires_at = now() - interval '1 second' WHERE gateway_reference = $1 RETURNING id)
       UPDATE processor_requests SET next_check_at = now() FROM c WHERE collection_id = c.id`,
      [p.gateway_reference],
    );
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'EXPIRED');
    w.btcpay.pay(id, 1250);
    await w.btcpay.deliveriesDone();
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ status: 'EXPIRED', journals: 0 });
    w.btcpay.mark(id, 'Settled');
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'COMPLETED');
    const late = await w.svc.services.db.one('SELECT late_completed_at FROM collections WHERE gateway_reference = $1', [p.gateway_reference]);
    expect(late.late_completed_at).toBeInstanceOf(Date);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).hooks.length === 2);
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ journals: 1, hooks: ['EXPIRED', 'COMPLETED'] });
  });

  test('underpaid then expired: FAILED, nothing credited', async () => {
    const p = await requestPayment(w, 'CRYPTO');
    const invoice = await open(p);
    await post(invoice, { pay: 'part' });
    const id = new URL(invoice).pathname.split('/').pop()!;
    w.btcpay.expire(id);
    await eventually(async () => (await stateOf(w, p.gateway_reference)).status === 'FAILED');
    expect(await stateOf(w, p.gateway_reference)).toMatchObject({ journals: 0, message: expect.stringContaining('Underpaid') });
  });
});
