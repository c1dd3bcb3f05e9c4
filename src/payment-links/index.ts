// Payment links (docs/contract/payment-links.md): a merchant's link to share, deactivated (never deleted)
// with a message, and read with its counts. This wing is the one writer of payment_links and
// payment_link_attempts; the customers' attempts on the hosted page are ./attempts.ts.
import type { Base } from '../base';
import { bound, hotSqlFile, sqlPart } from '../db';
import { LINK_ENDED_CTE } from '../notifications/notifications';
import { currentTraceParent } from '../telemetry';
import type { WorkerSpec } from '../workers/loops';
import type { CountedPaymentLinkRow, PaymentLinkRow } from '../api-records/payment-link';
import { pooledRandomBytes } from '../crypto/random-pool';
import { listPage } from '../db/keyset';
import type { KeyColumn, ListPage, PageRequest } from '../db/keyset';
import { AppError, validationError } from '../errors';
import type { FieldError } from '../errors';
import type { Principal } from '../merchants/access-tokens';
import { planLink } from './inputs';
import type { PaymentLinkCreate } from './inputs';

/**
 * The links' part of a collection's state change (collections/sql/move.sql's ${@links}, handed in by
 * src/wiring.ts): a completion counts on its link, and the one that brings it to its limit writes the
 * link's `payment_link.exhausted` notification in the same statement.
 */
export const LINK_COMPLETION_CTES = `${sqlPart(__dirname, 'completion-cte.sql')},\n${LINK_ENDED_CTE}`;

const EXPIRE_DUE_SQL = hotSqlFile(__dirname, 'expire-due.sql', { notice: LINK_ENDED_CTE });
const EXPIRE_BATCH = 100;
const EXPIRY_SWEEP_MS = 5000;

/** `pl_` and 24 base64url characters: 144 random bits. */
function newLinkId(): string {
  return `pl_${pooledRandomBytes(18).toString('base64url')}`;
}

const NEWEST_FIRST: KeyColumn[] = [
  { column: 'created_at', type: 'timestamptz' },
  { column: 'id', type: 'bigint' },
];

/** Why a link takes no payment now, as its page says it; null while it does. */
export type Unavailable = { reason: 'deactivated'; message: string | null } | { reason: 'expired' } | { reason: 'exhausted' };

export function unavailable(row: PaymentLinkRow, held: number, now: Date): Unavailable | null {
  // a link whose API token was deleted has nobody to make and notify its payments under
  if (row.state === 'deactivated' || row.api_token_id === null) return { reason: 'deactivated', message: row.deactivation_message };
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return { reason: 'expired' };
  if (row.completed_limit !== null && held >= row.completed_limit) return { reason: 'exhausted' };
  return null;
}

export class PaymentLinkService {
  constructor(private readonly s: Base) {}

  /**
   * Writes the link, or refuses with VALIDATION_ERROR naming every broken rule (with `refused`, what the
   * caller found wrong beyond the link's own rules) and writes nothing.
   */
  async create(p: Principal, body: PaymentLinkCreate, refused: FieldError[] = []): Promise<CountedPaymentLinkRow> {
    const now = this.s.now();
    const planned = planLink(body, now);
    const errors = [...('errors' in planned ? planned.errors : []), ...refused];
    if ('errors' in planned || errors.length > 0) throw validationError(errors);
    const l = planned.plan;
    const { link_id: linkId } = await this.s.db.one<{ link_id: string }>(
      `INSERT INTO payment_links (link_id, business_id, api_token_id, title, description, currency, amount_minor, min_amount_minor, max_amount_minor,
         payment_methods, expires_at, completed_limit, custom_fields, redirect_url, confirmation_message, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'active', $16, $16) RETURNING link_id`,
      [
        newLinkId(), p.businessId, p.apiTokenId, l.title, l.description, l.currency, l.amountMinor, l.minAmountMinor, l.maxAmountMinor,
        l.paymentMethods, l.expiresAt, l.completedLimit, JSON.stringify(l.customFields), l.redirectUrl, l.confirmationMessage, now,
      ],
    );
    return this.get(p.businessId, linkId);
  }

  /**
   * A link made in the dashboard, under `apiTokenId`: one of the business's API tokens (kept from being
   * deleted until the link is written), or VALIDATION_ERROR on `api_token_id` and nothing written.
   */
  async createUnderToken(businessId: number, apiTokenId: number, body: PaymentLinkCreate): Promise<CountedPaymentLinkRow> {
    const token = await this.s.db.oneOrNone('SELECT id FROM api_tokens WHERE id = $1 AND business_id = $2 FOR KEY SHARE', [apiTokenId, businessId]);
    const refused = token ? [] : [{ field: 'api_token_id', message: "must be one of your business's API tokens" }];
    return this.create({ businessId, apiTokenId }, body, refused);
  }

  /** One link with its counts: of the business (NOT_FOUND for another's), or of any business for `null`. */
  async get(businessId: number | null, linkId: string): Promise<CountedPaymentLinkRow> {
    const row = await this.s.db.oneOrNone<CountedPaymentLinkRow>(
      'SELECT * FROM payment_links_counted WHERE link_id = $1 AND ($2::int IS NULL OR business_id = $2)',
      [linkId, businessId],
    );
    if (!row) throw new AppError('NOT_FOUND', 'No payment link of yours has this link_id');
    return row;
  }

  /** A business's links (or every business's, for `null`), newest first, with their counts. */
  list(businessId: number | null, page: PageRequest): Promise<ListPage<CountedPaymentLinkRow>> {
    const sql = businessId === null ? 'SELECT * FROM payment_links_counted WHERE true' : 'SELECT * FROM payment_links_counted WHERE business_id = $1';
    return listPage<CountedPaymentLinkRow>(this.s.db, { sql, values: businessId === null ? [] : [businessId], key: NEWEST_FIRST, direction: 'DESC' }, page);
  }

  /** Stops the link taking payments; its page shows `message`. Payments under way go on. */
  async deactivate(businessId: number | null, linkId: string, message: string): Promise<CountedPaymentLinkRow> {
    const r = await this.s.db.result(
      `UPDATE payment_links SET state = 'deactivated', deactivation_message = $3, deactivated_at = coalesce(deactivated_at, $4), updated_at = $4
       WHERE link_id = $1 AND ($2::int IS NULL OR business_id = $2)`,
      [linkId, businessId, message, this.s.now()],
    );
    if (r.rowCount === 0) throw new AppError('NOT_FOUND', 'No payment link of yours has this link_id');
    return this.get(businessId, linkId);
  }

  /** Lets a deactivated link take payments again; an active one is left as it is. Of any business for `null`. */
  async reactivate(businessId: number | null, linkId: string): Promise<CountedPaymentLinkRow> {
    await this.get(businessId, linkId);
    await this.s.db.none(
      `UPDATE payment_links SET state = 'active', deactivation_message = NULL, deactivated_at = NULL, updated_at = $3
       WHERE link_id = $1 AND ($2::int IS NULL OR business_id = $2) AND state = 'deactivated'`,
      [linkId, businessId, this.s.now()],
    );
    return this.get(businessId, linkId);
  }

  /**
   * The expiry sweep: active links past expires_at whose end was not told yet are ended, each with its one
   * `payment_link.expired` notification in the same statement. Returns how many.
   */
  async endExpired(): Promise<number> {
    const now = this.s.now();
    const firstAttemptAt = new Date(now.getTime() + this.s.config.webhookRetryScheduleMs[0]);
    const { ended } = await this.s.db.one<{ ended: number }>(
      bound(this.s.db, EXPIRE_DUE_SQL, { now, limit: EXPIRE_BATCH, firstAttemptAt, traceParent: currentTraceParent() }),
    );
    if (ended > 0) this.s.kick('webhooks');
    return ended;
  }

  workers(): WorkerSpec[] {
    return [{ name: 'payment-link-expiry', intervalMs: EXPIRY_SWEEP_MS, run: () => this.endExpired() }];
  }

  /** The link a customer opened (without its counts: the page needs none), or null for an id that names none. */
  forPage(linkId: string): Promise<PaymentLinkRow | null> {
    return this.s.db.oneOrNone<PaymentLinkRow>('SELECT * FROM payment_links WHERE link_id = $1', [linkId]);
  }
}
