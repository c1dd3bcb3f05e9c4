// Proves a payment link's page: it shows the link (title, description, amount or bounds, custom fields, methods, phone) without JavaScript; a submission makes exactly one ordinary collection carrying the link, sends the customer to that collection's own hosted page, and once the sandbox completes it the link counts it and its end page thanks the customer; bad input, a missing CSRF pair, a deactivated, expired or exhausted link (410) and a client over its rate (429) create nothing; the QR codes are served as PNG and SVG.
import { eventually, setupMerchant } from '../../helpers/fixtures';
import type { MerchantSetup } from '../../helpers/fixtures';
import { openLink, postLink } from '../../helpers/link-pages';
import { expectOk } from '../../helpers/merchants';
import { startTestService } from '../../helpers/service';
import type { TestService } from '../../helpers/service';

const CLIENT_LIMIT = 40;
let svc: TestService;
let m: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '50', PAYMENT_LINK_CLIENT_ATTEMPTS_PER_MINUTE: String(CLIENT_LIMIT) } });
  m = await setupMerchant(svc);
});
afterAll(async () => {
  await svc?.close();
});

const base = {
  title: 'Tailoring deposit',
  description: 'Half now, half on delivery',
  amount: 50000,
  currency: 'UGX',
  payment_methods: ['MOBILE_MONEY', 'BANK'],
  custom_fields: [{ label: 'Order number', required: true }],
  confirmation_message: 'Thank you, we start sewing today',
};

async function newLink(body: Record<string, unknown> = {}) {
  return expectOk(await m.client.post('/v1/payment-links', { ...base, ...body })) as { link_id: string; url: string };
}

const open = (linkId: string) => openLink(svc.url, linkId);

async function submit(linkId: string, form: Record<string, string>, withCsrf = true, opened?: { cookie: string; csrf: string }) {
  return postLink(svc.url, linkId, opened ?? (await open(linkId)), form, withCsrf);
}

const paid = { method: 'MOBILE_MONEY', phone: '256777000001', field0: 'ORD-77' };

async function made(linkId: string) {
  return svc.services.db.any(
    `SELECT c.gateway_reference, c.merchant_reference, c.status, c.payment_method, c.request_amount_minor, c.account_number, a.custom_values
     FROM payment_link_attempts a JOIN payment_links l ON l.id = a.link_id LEFT JOIN collections c ON c.id = a.collection_id WHERE l.link_id = $1`,
    [linkId],
  );
}

const collections = async () => (await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM collections')).n;

it('shows the link without JavaScript: title, description, amount, custom fields, methods and phone', async () => {
  const link = await newLink();
  const { status, html } = await open(link.link_id);
  expect(status).toBe(200);
  for (const text of ['Tailoring deposit', 'Half now, half on delivery', '50,000 UGX', 'Order number', 'Mobile money', 'Bank', 'name="phone"']) expect(html).toContain(text);
  expect(html).not.toContain('<script');
  expect(html).toContain('width=device-width');
  expect((await open('pl_AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
});

it('makes one ordinary collection carrying the link, sends the customer to its page, and counts it once completed', async () => {
  const link = await newLink();
  const before = await collections();
  const res = await submit(link.link_id, paid);
  expect(res.status).toBe(303);
  const rows = await made(link.link_id);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ payment_method: 'MOBILE_MONEY', request_amount_minor: 5000000n, account_number: '256777000001', custom_values: { 'Order number': 'ORD-77' } });
  expect(await collections()).toBe(before + 1);
  const ref = rows[0].gateway_reference as string;
  // the collection names its link in its merchant_reference
  expect(rows[0].merchant_reference).toMatch(new RegExp(`^${link.link_id}-[0-9a-z]{1,8}$`));
  expect(res.location).toMatch(new RegExp(`^/pay/${ref}\\?token=`));
  expect(res.location).not.toContain('256777000001');
  // the ordinary path: the merchant reads it with the API, its notifications are written
  await eventually(async () => ((await m.client.get(`/v1/collections/${ref}`)).body.data.transaction_status === 'COMPLETED' ? true : undefined), 10_000, 'completion');
  expect((await svc.services.db.one('SELECT count(*)::int AS n FROM notifications n JOIN collections c ON c.id = n.collection_id WHERE c.gateway_reference = $1', [ref])).n).toBeGreaterThan(0);
  const counted = expectOk(await m.client.get(`/v1/payment-links/${link.link_id}`));
  expect([counted.attempts, counted.completed_payments, counted.amount_collected]).toEqual([1, 1, 50000]);
  // the collection's page, once decided, no longer reloads itself
  const decided = await (await fetch(new URL(res.location!, svc.url))).text();
  expect(decided).toContain('Reference ' + ref);
  expect(decided).not.toContain('http-equiv="refresh"');
  const done = await fetch(`${svc.url}/l/${link.link_id}/done?gateway_reference=${ref}&status=FAILED`);
  const html = await done.text();
  expect(html).toContain('Thank you, we start sewing today');
});

it('shows a mobile-money customer a page that reloads itself while the payment waits for the phone, without JavaScript', async () => {
  const link = await newLink();
  const res = await submit(link.link_id, { ...paid, phone: '256700000009' }); // a phone nobody answers
  expect(res.status).toBe(303);
  const html = await (await fetch(new URL(res.location!, svc.url))).text();
  expect(html).toContain('<meta http-equiv="refresh" content="5">');
  expect(html).toContain('This page refreshes by itself');
  expect(html).not.toContain('<script');
});

it('sends a bank payer to the bank page, and a chosen amount within its bounds', async () => {
  const link = await newLink({ amount: undefined, min_amount: 1000, max_amount: 2000, custom_fields: [] });
  const res = await submit(link.link_id, { method: 'BANK', amount: '1500.50' });
  expect(res.status).toBe(303);
  const [row] = await made(link.link_id);
  expect(row.request_amount_minor).toBe(150050n);
  const bank = await fetch(new URL(res.location!, svc.url));
  expect(await bank.text()).toContain('Approve transfer');
});

it('refuses bad input and a missing CSRF pair, creating nothing', async () => {
  const link = await newLink({ amount: undefined, min_amount: 1000, max_amount: 2000 });
  const before = await collections();
  const bad = await submit(link.link_id, { method: 'MOBILE_MONEY', phone: '12', amount: '5000' });
  expect(bad.status).toBe(400);
  for (const text of ['Enter an amount from 1,000 UGX to 2,000 UGX', 'Fill in Order number', 'Enter the phone number']) expect(bad.html).toContain(text);
  const unknownMethod = await submit(link.link_id, { ...paid, amount: '1500', method: 'CARD' });
  expect(unknownMethod.status).toBe(400);
  expect((await submit(link.link_id, { ...paid, amount: '1500' }, false)).status).toBe(403);
  const unreadable = await submit(link.link_id, { ...paid, amount: '1500', field0: 'ORD\u0000' });
  expect(unreadable.status).toBe(400);
  expect(unreadable.html).toContain('cannot be read');
  expect(await made(link.link_id)).toEqual([]);
  expect(await collections()).toBe(before);
});

it('answers 410 for a deactivated, an expired and an exhausted link and one whose API token is gone, even to a form opened before, and creates nothing', async () => {
  const off = await newLink();
  const tokenless = await newLink();
  const expired = await newLink({ expires_at: new Date(Date.now() + 3_600_000).toISOString().slice(0, 19) + 'Z' });
  const once = await newLink({ completed_limit: 1 });
  // the forms a customer opened while the links still took payments
  const forms = await Promise.all([off, expired, once, tokenless].map((l) => open(l.link_id)));
  expectOk(await m.client.post(`/v1/payment-links/${off.link_id}/deactivate`, { message: 'Closed for the holidays' }));
  await svc.services.db.none("UPDATE payment_links SET expires_at = now() - interval '1 minute' WHERE link_id = $1", [expired.link_id]);
  // what deleting the link's API token leaves (its foreign key sets it null): nobody to take and notify its payments under
  await svc.services.db.none('UPDATE payment_links SET api_token_id = NULL WHERE link_id = $1', [tokenless.link_id]);
  expect((await submit(once.link_id, paid)).status).toBe(303);
  const before = await collections();
  const cases = [[off, 'Closed for the holidays'], [expired, 'has expired'], [once, 'no longer available'], [tokenless, 'no longer available']] as const;
  for (const [i, [link, words]] of cases.entries()) {
    const page = await open(link.link_id);
    expect(page.status).toBe(410);
    expect(page.html).toContain(words);
    const late = await submit(link.link_id, paid, true, forms[i]);
    expect(late.status).toBe(410);
    expect(late.html).toContain(words);
  }
  expect(await collections()).toBe(before);
  expect(await made(once.link_id)).toHaveLength(1);
  expect(await made(off.link_id)).toEqual([]);
  expect(await made(tokenless.link_id)).toEqual([]);
});

it('serves the QR code of the link as PNG and SVG', async () => {
  const link = await newLink();
  const png = await fetch(`${link.url.replace(svc.config.publicBaseUrl, svc.url)}/qr.png`);
  expect(png.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
  const svg = await fetch(`${svc.url}/l/${link.link_id}/qr.svg`);
  expect(svg.headers.get('content-type')).toContain('image/svg+xml');
  expect(await svg.text()).toContain('<svg');
});

it('answers 429 to a client past its rate, creating nothing', async () => {
  const link = await newLink();
  const before = await collections();
  let last = 0;
  for (let i = 0; i <= CLIENT_LIMIT && last !== 429; i += 1) last = (await submit(link.link_id, { method: 'MOBILE_MONEY', phone: '1' })).status;
  expect(last).toBe(429);
  expect(await collections()).toBe(before);
});
