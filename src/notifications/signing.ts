// Standard Webhooks signatures (docs/contract/webhooks.md): HMAC-SHA256 keyed by the UTF-8 bytes of the
// API token's webhook_hash over "<webhook-id>.<webhook-timestamp>.<body>", body as the exact bytes sent.
import { createHmac } from 'node:crypto';

export const USER_AGENT = 'PayCollect-Webhooks/1';

/** "v1,<base64 signature>" for one attempt. */
export function signWebhook(webhookHash: string, eventId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(webhookHash, 'utf8'))
    .update(`${eventId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** Every header of one delivery attempt. */
export function webhookHeaders(webhookHash: string, eventId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(webhookHash, eventId, timestampSeconds, body),
  };
}
