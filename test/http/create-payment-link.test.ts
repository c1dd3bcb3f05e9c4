// Proves the payment link resource through the merchant API: a link is created with an unguessable id, its URL and QR codes on the public base URL and zero counts; bad input (both amount kinds, neither, min above max, an unknown method, more than three custom fields, an expiry in the past, both end kinds) is refused naming each field and writes nothing; links are listed newest first and read only by their business; deactivation keeps the link with its message, reactivation undoes it.
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { errorFields, expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let m: MerchantSetup;
let other: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService({ env: { PUBLIC_BASE_URL: 'https://pay.example.com' } });
  m = await setupMerchant(svc);
  other = await setupMerchant(svc);
});
afterAll(async () => {
  await svc?.close();
});

const fixed = { title: 'Tailoring deposit', amount: 50000, currency: 'UGX', payment_methods: ['MOBILE_MONEY', 'CARD'] };

async function linkCount(): Promise<number> {
  return (await svc.services.db.one<{ n: number }>('SELECT count(*)::int AS n FROM payment_links')).n;
}

it('creates a link with an unguessable id, its URL and QR codes on the public base URL, and zero counts', async () => {
  const link = expectOk(
    await m.client.post('/v1/payment-links', {
      ...fixed,
      description: 'Half now',
      completed_limit: 1,
      custom_fields: [{ label: 'Order number', required: true }],
      confirmation_message: 'Thank you',
    }),
  );
  expect(link).toEqual({
    link_id: expect.stringMatching(/^pl_[A-Za-z0-9_-]{24}$/),
    url: `https://pay.example.com/l/${link.link_id}`,
    qr_png_url: `https://pay.example.com/l/${link.link_id}/qr.png`,
    qr_svg_url: `https://pay.example.com/l/${link.link_id}/qr.svg`,
    title: 'Tailoring deposit', description: 'Half now', amount: 50000, min_amount: null, max_amount: null, currency: 'UGX',
    payment_methods: ['MOBILE_MONEY', 'CARD'], expires_at: null, completed_limit: 1, custom_fields: [{ label: 'Order number', required: true }],
    redirect_url: null, confirmation_message: 'Thank you', state: 'active', deactivation_message: null,
    attempts: 0, completed_payments: 0, amount_collected: 0, created_at: expect.stringMatching(/Z$/), updated_at: expect.stringMatching(/Z$/),
  });
  expect(expectOk(await m.client.get(`/v1/payment-links/${link.link_id}`))).toEqual(link);
  // another business's link is not found
  expect((await other.client.get(`/v1/payment-links/${link.link_id}`)).status).toBe(404);
  expect(errorFields(await m.client.get('/v1/payment-links/not-a-link'))).toEqual(['link_id']);
});

it('takes an amount the customer chooses between a minimum and a maximum', async () => {
  const link = expectOk(await m.client.post('/v1/payment-links', { title: 'Donation', min_amount: 1000, max_amount: 1000, currency: 'UGX', payment_methods: ['CRYPTO'] }));
  expect([link.amount, link.min_amount, link.max_amount]).toEqual([null, 1000, 1000]);
});

it('refuses bad input naming each field, and writes nothing', async () => {
  const before = await linkCount();
  const past = new Date(Date.now() - 60_000).toISOString().slice(0, 19) + 'Z';
  const field = (label: string) => ({ label, required: false });
  const cases: [Record<string, unknown>, string[]][] = [
    [{ ...fixed, min_amount: 10, max_amount: 20 }, ['amount']],
    [{ title: 'x', currency: 'UGX', payment_methods: ['CARD'] }, ['amount']],
    [{ ...fixed, amount: undefined, min_amount: 500, max_amount: 100 }, ['min_amount']],
    [{ ...fixed, amount: undefined, min_amount: 500 }, ['max_amount']],
    [{ ...fixed, payment_methods: ['CHEQUE'] }, ['payment_methods[0]']],
    [{ ...fixed, custom_fields: [field('a'), field('b'), field('c'), field('d')] }, ['custom_fields']],
    [{ ...fixed, custom_fields: [field('Order'), field('order')] }, ['custom_fields']],
    [{ ...fixed, expires_at: past }, ['expires_at']],
    [{ ...fixed, redirect_url: 'https://shop.example.org/done', confirmation_message: 'Thanks' }, ['confirmation_message']],
    [{ ...fixed, amount: 10.123 }, ['amount']],
  ];
  for (const [body, fields] of cases) {
    const names = errorFields(await m.client.post('/v1/payment-links', body));
    for (const f of fields) expect(names.join(' ')).toContain(f.replace(/\[0\]$/, ''));
  }
  expect(await linkCount()).toBe(before);
});

it('lists the business links newest first, and only its own', async () => {
  const a = expectOk(await other.client.post('/v1/payment-links', fixed));
  const b = expectOk(await other.client.post('/v1/payment-links', { ...fixed, title: 'Second' }));
  const page = await other.client.get('/v1/payment-links?per_page=1');
  expect(page.body.data.map((l: { link_id: string }) => l.link_id)).toEqual([b.link_id]);
  expect(page.body.paging.total).toBe(2);
  const next = await other.client.get(`/v1/payment-links?per_page=1&cursor=${page.body.paging.next_cursor}`);
  expect(next.body.data.map((l: { link_id: string }) => l.link_id)).toEqual([a.link_id]);
  const mine = (await m.client.get('/v1/payment-links?per_page=100')).body.data.map((l: { link_id: string }) => l.link_id);
  expect(mine).not.toContain(a.link_id);
});

it('deactivates a link with a message, never deleting it, and reactivates it', async () => {
  const link = expectOk(await m.client.post('/v1/payment-links', fixed));
  expect((await other.client.post(`/v1/payment-links/${link.link_id}/deactivate`, { message: 'No' })).status).toBe(404);
  expect(errorFields(await m.client.post(`/v1/payment-links/${link.link_id}/deactivate`, {}))).toEqual(['message']);
  const off = expectOk(await m.client.post(`/v1/payment-links/${link.link_id}/deactivate`, { message: 'Sold out' }));
  expect([off.state, off.deactivation_message]).toEqual(['deactivated', 'Sold out']);
  expect(expectOk(await m.client.get(`/v1/payment-links/${link.link_id}`)).state).toBe('deactivated');
  const on = expectOk(await m.client.post(`/v1/payment-links/${link.link_id}/reactivate`));
  expect([on.state, on.deactivation_message]).toEqual(['active', null]);
  expect(expectOk(await m.client.post(`/v1/payment-links/${link.link_id}/reactivate`, {})).state).toBe('active');
});
