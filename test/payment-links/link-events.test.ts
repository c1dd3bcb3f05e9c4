// Proves the webhook of a payment link's end: the completion that brings a link to its completed_limit writes
// one `payment_link.exhausted` notification with it, delivered signed to the merchant once, and nothing more
// follows (not the completions before it, not an expiry afterwards); completions at once that together reach
// the limit tell it once; the expiry sweep tells an active link past expires_at once by
// `payment_link.expired` (a second sweep sends nothing) and leaves a deactivated one alone. Each body
// matches the contract's PaymentLinkNotification, and the business's delivery log lists the link's notification.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { makeAjv } from '../../src/http/app';
import { signWebhook } from '../../src/notifications/signing';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { openLink, postLink } from '../helpers/link-pages';
import { expectOk } from '../helpers/merchants';
import { eventually, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let hooks: Receiver;
let m: MerchantSetup;

beforeAll(async () => {
  hooks = await startReceiver();
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,200ms' } });
  m = await setupMerchant(svc, { webhookUrl: hooks.url });
});
afterAll(async () => {
  await svc?.close();
  await hooks?.close();
});

const schema = parse(readFileSync(path.resolve(__dirname, '../../openapi/components/schemas/PaymentLinkNotification.yaml'), 'utf8'));
const validBody = makeAjv().compile(schema);

async function newLink(body: Record<string, unknown> = {}) {
  return expectOk<{ link_id: string }>(
    await m.client.post('/v1/payment-links', { title: 'Tailoring deposit', amount: 25000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'], ...body }),
    'createPaymentLink',
  );
}

/** A customer's attempt on the link's page, by a phone nobody answers: its collection stays PENDING. */
async function attempt(linkId: string): Promise<string> {
  const res = await postLink(svc.url, linkId, await openLink(svc.url, linkId), { method: 'MOBILE_MONEY', phone: '256700000009' });
  expect(res.status).toBe(303);
  return /\/pay\/([^?]+)\?/.exec(res.location ?? '')![1];
}

const complete = async (ref: string) => expect((await m.client.post(`/v1/sandbox/collections/${ref}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);

/** The link's notifications, as the outbox has them. */
function notificationsOf(linkId: string) {
  return svc.services.db.any<{ transaction_status: string; sequence: number; body: string; event_id: string; collection_id: bigint | null }>(
    'SELECT n.transaction_status, n.sequence, n.body, n.event_id, n.collection_id FROM notifications n JOIN payment_links l ON l.id = n.payment_link_id WHERE l.link_id = $1',
    [linkId],
  );
}

/** The webhooks the merchant received about the link, once the outbox has delivered them all. */
async function received(linkId: string) {
  await eventually(async () => Number((await svc.services.db.one('SELECT count(*) AS n FROM notifications WHERE delivered_at IS NULL AND gave_up_at IS NULL')).n) === 0, 15_000, 'the outbox delivered');
  return hooks.received.filter((r) => JSON.parse(r.body).link_id === linkId);
}

function signedByTheMerchantsHash(r: { headers: Record<string, string | string[] | undefined>; body: string }): boolean {
  const h = (name: string) => String(r.headers[name]);
  return signWebhook(m.webhookHash, h('webhook-id'), Number(h('webhook-timestamp')), r.body) === h('webhook-signature');
}

describe('payment_link.exhausted', () => {
  it('is written with the completion that reaches the limit, once, delivered signed; the completions before it and an expiry afterwards tell nothing', async () => {
    const link = await newLink({ completed_limit: 2 });
    const first = await attempt(link.link_id);
    const second = await attempt(link.link_id);
    await complete(first);
    expect(await notificationsOf(link.link_id)).toEqual([]);
    await complete(second);
    const [n, ...more] = await notificationsOf(link.link_id);
    expect(more).toEqual([]);
    expect(n).toMatchObject({ transaction_status: 'payment_link.exhausted', sequence: 1, collection_id: null });
    const body = JSON.parse(n.body);
    expect(validBody(body)).toBe(true);
    expect(body).toMatchObject({ transaction_type: 'payment_link', event: 'payment_link.exhausted', link_id: link.link_id, completed_limit: 2, completed_payments: 2, expires_at: null });

    const got = await received(link.link_id);
    expect(got).toHaveLength(1);
    expect(got[0].body).toBe(n.body);
    expect(got[0].headers['webhook-id']).toBe(n.event_id);
    expect(signedByTheMerchantsHash(got[0])).toBe(true);

    // past an expiry now, the link is not told again
    await svc.services.db.none("UPDATE payment_links SET expires_at = now() - interval '1 minute' WHERE link_id = $1", [link.link_id]);
    await svc.services.paymentLinks.endExpired();
    expect(await notificationsOf(link.link_id)).toHaveLength(1);
    expect(await received(link.link_id)).toHaveLength(1);
  });

  it('completions at once that together reach the limit tell it once', async () => {
    const link = await newLink({ completed_limit: 3 });
    const refs = [await attempt(link.link_id), await attempt(link.link_id), await attempt(link.link_id)];
    const ids = await svc.services.db.map('SELECT id FROM collections WHERE gateway_reference = ANY($1)', [refs], (r: { id: bigint }) => r.id);
    // each in its own transaction, all at once (on the real server they wait for each other's link row)
    await Promise.all(ids.map((id) => svc.services.db.tx((t) => svc.services.collections.move(t, id, 'COMPLETED'))));
    const notes = await notificationsOf(link.link_id);
    expect(notes.map((x) => JSON.parse(x.body)).map((b) => [b.event, b.completed_payments])).toEqual([['payment_link.exhausted', 3]]);
    expect(expectOk(await m.client.get(`/v1/payment-links/${link.link_id}`)).completed_payments).toBe(3);
    expect(await received(link.link_id)).toHaveLength(1);
  });
});

describe('payment_link.expired', () => {
  it('is told once by the sweep for an active link past expires_at; a second sweep sends nothing; a deactivated link is not told', async () => {
    const expiring = await newLink({ expires_at: new Date(Date.now() + 3_600_000).toISOString(), completed_limit: 5 });
    const paused = await newLink({ expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const lasting = await newLink();
    await complete(await attempt(expiring.link_id));
    expectOk(await m.client.post(`/v1/payment-links/${paused.link_id}/deactivate`, { message: 'Closed for the holidays' }));
    await svc.services.paymentLinks.endExpired();
    expect(await notificationsOf(expiring.link_id)).toEqual([]);

    await svc.services.db.none("UPDATE payment_links SET expires_at = now() - interval '1 minute' WHERE link_id = ANY($1)", [[expiring.link_id, paused.link_id]]);
    await svc.services.paymentLinks.endExpired();
    expect(await svc.services.paymentLinks.endExpired()).toBe(0);
    const [n, ...more] = await notificationsOf(expiring.link_id);
    expect(more).toEqual([]);
    const body = JSON.parse(n.body);
    expect(validBody(body)).toBe(true);
    expect(body).toMatchObject({ event: 'payment_link.expired', link_id: expiring.link_id, completed_limit: 5, completed_payments: 1 });
    expect(n.transaction_status).toBe('payment_link.expired');
    const got = await received(expiring.link_id);
    expect(got.map((r) => JSON.parse(r.body).event)).toEqual(['payment_link.expired']);
    expect(signedByTheMerchantsHash(got[0])).toBe(true);
    expect(await notificationsOf(paused.link_id)).toEqual([]);
    expect(await notificationsOf(lasting.link_id)).toEqual([]);
    // the business's delivery log lists it, named by its link
    const log = expectOk(await svc.admin.get(`/v1/admin/businesses/${m.businessId}/deliveries`)) as { subject: string; gateway_reference: string; transaction_status: string; state: string }[];
    expect(log.filter((d) => d.gateway_reference === expiring.link_id)).toEqual([
      expect.objectContaining({ subject: 'payment_link', gateway_reference: expiring.link_id, transaction_status: 'payment_link.expired', event_id: got[0].headers['webhook-id'] }),
    ]);
    expect(log.filter((d) => d.subject === 'payment_link').every((d) => d.gateway_reference.startsWith('pl_'))).toBe(true);
  });
});
