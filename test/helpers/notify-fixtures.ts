// Notification test fixtures: a merchant and collections written by SQL (independent of the merchant
// and collection services), state changes made by the collection service's own move, a real HTTP webhook
// receiver and small polling helpers.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seal } from '../../src/crypto/secretbox';
import type { CollectionRow, FinalStatus } from '../../src/domain/collection';
import { STATUS_MESSAGES } from '../../src/domain/collection';
import type { Recipients } from '../../src/notifications/notifications';
import type { Services } from '../../src/wiring';
import { hashSecret } from '../../src/merchants/access-tokens';

export interface NotifyMerchant {
  businessId: number;
  apiTokenId: number;
  apiKey: string;
  webhookHash: string;
  /** "JWT <token>" for the merchant API */
  jwt: string;
}

export interface NotifyMerchantOptions {
  webhookUrl: string;
  name?: string;
  notificationEmail?: string;
  emailMerchant?: boolean;
  emailUser?: boolean;
}

export async function createNotifyMerchant(s: Services, o: NotifyMerchantOptions): Promise<NotifyMerchant> {
  const tag = randomBytes(6).toString('hex');
  const webhookHash = `whsec-test-${tag}-0123456789`;
  const apiKey = `pk_${s.config.appEnv}_${tag}`;
  const secret = `sk_${s.config.appEnv}_${tag}`;
  const business = await s.db.one<{ id: number }>(
    "INSERT INTO businesses (name, default_currency, verified_at) VALUES ($1, 'UGX', now()) RETURNING id",
    [o.name ?? `Notify Merchant ${tag}`],
  );
  // the wallet of its default currency, as every business has: a completion is credited to it
  await s.db.none("INSERT INTO wallets (business_id, currency, is_default) VALUES ($1, 'UGX', true)", [business.id]);
  const token = await s.db.one<{ id: number }>(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc, email_merchant, email_user)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      business.id,
      apiKey,
      await hashSecret(secret),
      o.notificationEmail ?? `merchant-${tag}@example.org`,
      o.webhookUrl,
      seal(s.config.masterKey, webhookHash),
      o.emailMerchant ?? false,
      o.emailUser ?? false,
    ],
  );
  const { token: jwt } = await s.accessTokens.issueAccessToken(apiKey, secret, 3600, '127.0.0.1');
  return { businessId: business.id, apiTokenId: token.id, apiKey, webhookHash, jwt };
}

export interface CollectionOptions {
  paymentMethod?: 'MOBILE_MONEY' | 'CARD' | 'BANK' | 'CRYPTO';
  accountEmail?: string | null;
  accountName?: string | null;
  cardMasked?: string | null;
  amountMinor?: bigint;
  feeMinor?: bigint;
}

/**
 * A PENDING collection, inserted with its start notice in one transaction (as request-to-pay's one statement
 * writes them): the notice the service drafts (startEmails) for its API token's recipients.
 */
export async function createPendingCollection(s: Services, m: NotifyMerchant, o: CollectionOptions = {}): Promise<CollectionRow> {
  const tag = randomBytes(5).toString('hex').toUpperCase();
  const amount = o.amountMinor ?? 5_000_000n;
  const fee = o.feeMinor ?? 150_000n;
  const row = await s.db.tx(async (t) => {
    const r = await t.one<CollectionRow>(
      `INSERT INTO collections (business_id, api_token_id, gateway_reference, merchant_reference, request_hash, payment_method,
         message, request_amount_minor, request_currency, account_amount_minor, account_currency, fee_minor, total_credit_minor,
         customer_charged, account_number, account_name, account_email, narration, card_masked, institution_name, expires_at)
       VALUES ($1, $2, $3, $4, 'hash', $5, $6, $7, 'UGX', $7, 'UGX', $8, $9, false, '256700000099', $10, $11,
         'Order payment narration', $12, 'Sandbox Mobile Money', now() + interval '30 minutes')
       RETURNING *`,
      [
        m.businessId,
        m.apiTokenId,
        `PCLT${tag}`,
        `ORD-${tag}`,
        o.paymentMethod ?? 'MOBILE_MONEY',
        STATUS_MESSAGES.PENDING,
        amount,
        fee,
        amount - fee,
        o.accountName ?? null,
        o.accountEmail ?? null,
        o.cardMasked ?? null,
      ],
    );
    const who = await t.one<Recipients>(
      `SELECT t.notification_email, t.email_merchant, t.email_user, b.name AS business_name
       FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.id = $1`,
      [m.apiTokenId],
    );
    for (const e of s.notifications.startEmails(r, who)) {
      await t.none('INSERT INTO emails (collection_id, kind, recipient, subject, text_body, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        r.id,
        e.kind,
        e.recipient,
        e.subject,
        e.text,
        r.created_at,
      ]);
    }
    return r;
  });
  s.workers?.kick('emails');
  return row;
}

/** Moves a PENDING collection to a final state through the collection service's move (applyOutcome). */
export async function finishCollection(s: Services, id: bigint, status: FinalStatus = 'COMPLETED'): Promise<CollectionRow> {
  const row = await s.collections.applyOutcome(id, status);
  if (!row) throw new Error(`collection ${id} is not PENDING`);
  s.workers?.kick('webhooks');
  s.workers?.kick('emails');
  return row;
}

/**
 * A further status notification of one collection (to prove ordering of several per record): the late
 * completion of a collection that EXPIRED, as when its processor confirms payment after our deadline.
 */
export async function completeLate(s: Services, id: bigint): Promise<CollectionRow> {
  const row = await s.collections.applyOutcome(id, 'COMPLETED', undefined, 'EXPIRED');
  if (!row) throw new Error(`collection ${id} is not EXPIRED`);
  s.workers?.kick('webhooks');
  return row;
}

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (r: Received, index: number) => { status: number; body?: string; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: Responder;
  close(): Promise<void>;
}

/** A real webhook endpoint on 127.0.0.1; `respond` decides each answer (default 200). */
export async function startReceiver(port = 0, respond: Responder = () => ({ status: 200, body: '{"received":true}' })): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { received, respond } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const answer = receiver.respond(r, received.length - 1);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls until check() returns a truthy value, or throws after timeoutMs. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface NotificationState {
  id: bigint;
  event_id: string;
  sequence: number;
  body: string;
  attempts: number;
  delivered_at: Date | null;
  gave_up_at: Date | null;
  next_attempt_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

export function notificationsOf(s: Services, collectionId: bigint): Promise<NotificationState[]> {
  return s.db.any<NotificationState>('SELECT * FROM notifications WHERE collection_id = $1 ORDER BY sequence', [collectionId]);
}

export function attemptsOf(s: Services, notificationId: bigint) {
  return s.db.any<{ attempt: number; http_status: number | null; error: string | null; duration_ms: number; response_body: string | null }>(
    'SELECT * FROM notification_attempts WHERE notification_id = $1 ORDER BY attempt',
    [notificationId],
  );
}
