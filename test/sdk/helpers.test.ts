// Proves the SDK's pure helpers on their own: its webhook verifier agrees with the reference Standard Webhooks
// library both ways (and with several signatures), and list iteration follows cursors and stops on a repeat.
import { Webhook } from 'standardwebhooks';
import { iterate, verifyWebhook, WebhookVerificationError } from '../../sdk/src';
import type { Page } from '../../sdk/src';
import { webhookHeaders } from '../../src/notifications/signing';

const HASH = 'whsec-sdk-helpers-0123456789';
const BODY = '{"gateway_reference":"PCAAAAAAAAAAAAAAAAAAAA","transaction_status":"COMPLETED","sequence":1}';
const reference = new Webhook(new TextEncoder().encode(HASH), { format: 'raw' });

describe('verifyWebhook', () => {
  const now = Math.floor(Date.now() / 1000);

  it('accepts what the reference library signs, and the service signs what the reference library accepts', () => {
    const id = 'evt_0123456789abcdef0123456789abcdef';
    const signed = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': reference.sign(id, new Date(now * 1000), BODY) };
    expect(verifyWebhook(HASH, BODY, signed)).toMatchObject({ sequence: 1 });
    const service = webhookHeaders(HASH, id, now, BODY);
    expect(reference.verify(BODY, service)).toMatchObject({ sequence: 1 });
    expect(verifyWebhook(HASH, Buffer.from(BODY), new Headers(service))).toMatchObject({ transaction_status: 'COMPLETED' });
  });

  it('accepts any one of several signatures, and refuses when none matches', () => {
    const good = webhookHeaders(HASH, 'evt_1', now, BODY);
    const other = webhookHeaders('whsec-old-hash-0123456789', 'evt_1', now, BODY)['webhook-signature'];
    expect(verifyWebhook(HASH, BODY, { ...good, 'webhook-signature': `${other} ${good['webhook-signature']}` })).toBeTruthy();
    expect(() => verifyWebhook(HASH, BODY, { ...good, 'webhook-signature': `${other} v2,${good['webhook-signature'].slice(3)}` })).toThrow(WebhookVerificationError);
  });

  it.each([
    ['no webhook-id', { 'webhook-id': undefined }],
    ['a timestamp that is not a number', { 'webhook-timestamp': '12e3' }],
    ['a timestamp from 6 minutes ago', { 'webhook-timestamp': String(now - 360) }],
    ['no signature', { 'webhook-signature': undefined }],
  ])('refuses %s', (_name, change) => {
    const headers = { ...webhookHeaders(HASH, 'evt_2', now, BODY), ...change };
    expect(() => verifyWebhook(HASH, BODY, headers)).toThrow(WebhookVerificationError);
  });
});

describe('iterate', () => {
  const pages: Record<string, Page<number>> = {
    first: { data: [1, 2], paging: { next_cursor: 'b' } },
    b: { data: [3, 4], paging: { next_cursor: 'c' } },
    c: { data: [5], paging: { next_cursor: null } },
  };

  it('yields every item of every page, asking with each next_cursor in turn', async () => {
    const asked: (string | undefined)[] = [];
    const items: number[] = [];
    for await (const n of iterate(async (cursor) => (asked.push(cursor), pages[cursor ?? 'first']))) items.push(n);
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(asked).toEqual([undefined, 'b', 'c']);
  });

  it('stops with an error when a cursor comes back twice, rather than looping for ever', async () => {
    const looping: Record<string, Page<number>> = { ...pages, c: { data: [5], paging: { next_cursor: 'b' } } };
    const items: number[] = [];
    const drain = async () => {
      for await (const n of iterate(async (cursor) => looping[cursor ?? 'first'])) items.push(n);
    };
    await expect(drain()).rejects.toThrow(/twice/);
    expect(items).toEqual([1, 2, 3, 4, 5]);
  });
});
