// Webhook signature verification (Standard Webhooks, as PayCollect signs): HMAC-SHA256 keyed by the
// UTF-8 bytes of the API token's webhook_hash over "<webhook-id>.<webhook-timestamp>.<raw body>",
// sent as "v1,<base64>" (several space-separated signatures may come while a hash is being changed).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/merchant-api';

export type CollectionNotification = components['schemas']['CollectionNotification'];
export type RefundNotification = components['schemas']['RefundNotification'];
export type DisbursementNotification = components['schemas']['DisbursementNotification'];
export type PaymentLinkNotification = components['schemas']['PaymentLinkNotification'];
export type DisputeNotification = components['schemas']['DisputeNotification'];
/** What a webhook carries: a collection's, a refund's or a disbursement's change, a payment link's end, or a card dispute's event; `transaction_type` tells which. */
export type Notification = CollectionNotification | RefundNotification | DisbursementNotification | PaymentLinkNotification | DisputeNotification;

/** Replays older (or clock skew larger) than this are refused. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** the clock, in milliseconds since the epoch */
  now?: () => number;
}

/**
 * Checks a delivery and returns the notification it carries; throws WebhookVerificationError when
 * the signature, the headers or the timestamp are not right. `rawBody` is the body exactly as
 * received: JSON parsed and serialised again no longer matches the signature.
 */
export function verifyWebhook(webhookHash: string, rawBody: string | Uint8Array, headers: HeaderBag, o: VerifyOptions = {}): Notification {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !/^\d+$/.test(timestamp) || !signatures) throw new WebhookVerificationError('missing or malformed webhook headers');
  const nowSeconds = (o.now ?? Date.now)() / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > (o.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('webhook-timestamp is too far from now');
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', Buffer.from(webhookHash, 'utf8')).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body.toString('utf8')) as Notification;
}
