// API tokens of a business (docs/contract/authentication.md): at most two, the secret shown once and kept
// as its argon2id hash, its webhook URL checked, its IP allowlist for disbursements; regenerated or
// deleted, its access tokens stop at once. The person who created a token or last regenerated its secret
// has seen the secret: they are its holder, and may not approve what the token asks for. A wider
// allowlist waits for its notice, every owner told (guard-changes.ts); a narrower one applies at once.
import type { Base } from '../base';
import type { Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import { seal } from '../crypto/secretbox';
import { AppError } from '../errors';
import { allowlistErrors, allowlistWidens } from '../domain/ip-allowlist';
import type { NotificationService } from '../notifications/notifications';
import { API_TOKEN_COLUMNS, apiTokenRecord } from '../api-records/merchant';
import type { ApiTokenRecord, ApiTokenRow } from '../api-records/merchant';
import { hashSecret, newCredentials } from './access-tokens';
import type { GuardChanges, Requester } from './guard-changes';
import { checkId, defined, lockBusiness, mapPage, MAX_API_TOKENS_PER_BUSINESS, notFound, storedAllowlist, throwIfAny, updateSql } from './inputs';
import type { ApiTokenInput, ApiTokenPatch } from './inputs';

export class ApiTokenService {
  constructor(readonly s: Base & { notifications: NotificationService; guards: GuardChanges }) {}

  private get live(): boolean {
    return this.s.config.appEnv === 'live';
  }

  /**
   * The secret is in this answer only; the database keeps its argon2id hash, and `by` becomes the token's
   * holder. An allowlist given here that lets in more than no list does (in live, where no list lets in
   * nobody: any) waits for its notice, every owner told.
   */
  async createApiToken(businessId: number, input: ApiTokenInput, by: Requester): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(businessId, 'business');
    if (input.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', input.ip_allowlist, this.live));
    await this.s.notifications.assertWebhookUrlAllowed(input.webhook_url);
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const list = storedAllowlist(input.ip_allowlist);
    const waits = allowlistWidens(null, list, this.live);
    const row = await this.s.db.tx(async (t) => {
      const business = await lockBusiness(t, businessId);
      const created = await this.insertApiToken(t, businessId, { ...input, ip_allowlist: waits ? null : list }, creds.apiKey, secretHash, by.userId);
      if (waits) await this.s.guards.schedule(t, { businessId, apiTokenId: created.id, apiKey: created.api_key, field: 'ip_allowlist', cidrs: list }, by, business.name);
      return created;
    });
    return { ...(await this.recordOf(row)), api_secret: creds.apiSecret };
  }

  async listApiTokens(businessId: number, page: PageRequest): Promise<ListPage<ApiTokenRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      if (!(await t.oneOrNone('SELECT 1 FROM businesses WHERE id = $1', [businessId]))) throw notFound('business');
      const sql = `SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE business_id = $1`;
      const found = await listPage<ApiTokenRow>(t, { sql, values: [businessId], key: BY_ID, direction: 'ASC' }, page);
      const { apiTokens } = await this.s.guards.waiting(t, { apiTokenIds: found.rows.map((r) => r.id) });
      return mapPage(found, (r) => apiTokenRecord(r, apiTokens.get(r.id)));
    });
  }

  /**
   * Changes a token's settings under its business's lock. A wider allowlist waits for its notice (every
   * owner told); a narrower one, or the same, applies at once and withdraws one that waits.
   */
  async updateApiToken(id: number, patch: ApiTokenPatch, by: Requester): Promise<ApiTokenRecord> {
    checkId(id, 'API token');
    if (patch.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', patch.ip_allowlist, this.live));
    if (patch.webhook_url !== undefined) await this.s.notifications.assertWebhookUrlAllowed(patch.webhook_url);
    const { webhook_hash, ip_allowlist, ...columns } = patch;
    const values: Record<string, unknown> = { ...defined(columns), updated_at: this.s.now() };
    if (webhook_hash !== undefined) values.webhook_hash_enc = seal(this.s.config.masterKey, webhook_hash);
    const row = await this.s.db.tx(async (t) => {
      const owner = await t.oneOrNone<{ business_id: number }>('SELECT business_id FROM api_tokens WHERE id = $1', [id]);
      if (!owner) throw notFound('API token');
      const business = await lockBusiness(t, owner.business_id);
      const current = await t.oneOrNone<ApiTokenRow>(`SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE id = $1 FOR UPDATE`, [id]);
      if (!current) throw notFound('API token');
      if (ip_allowlist !== undefined) {
        const next = storedAllowlist(ip_allowlist);
        if (allowlistWidens(current.ip_allowlist, next, this.live)) {
          await this.s.guards.schedule(t, { businessId: current.business_id, apiTokenId: id, apiKey: current.api_key, field: 'ip_allowlist', cidrs: next }, by, business.name);
        } else {
          values.ip_allowlist = next;
          await this.s.guards.withdraw(t, { apiTokenId: id, field: 'ip_allowlist' });
        }
      }
      return t.one<ApiTokenRow>(updateSql('api_tokens', values, [], ['ip_allowlist']) + ` WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`, [id]);
    });
    return this.recordOf(row);
  }

  /** New key and secret, seen by `by` (the token's holder from now on); the generation moves on, so access tokens issued before stop at once. */
  async regenerateApiToken(id: number, by: Requester): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(id, 'API token');
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const row = await this.s.db.oneOrNone<ApiTokenRow>(
      `UPDATE api_tokens SET api_key = $2, secret_hash = $3, generation = generation + 1, updated_at = $4, secret_holder_user_id = $5
       WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`,
      [id, creds.apiKey, secretHash, this.s.now(), by.userId],
    );
    if (!row) throw notFound('API token');
    return { ...(await this.recordOf(row)), api_secret: creds.apiSecret };
  }

  private async recordOf(row: ApiTokenRow): Promise<ApiTokenRecord> {
    const { apiTokens } = await this.s.guards.waiting(this.s.db, { apiTokenIds: [row.id] });
    return apiTokenRecord(row, apiTokens.get(row.id));
  }

  /** Access tokens find no row for their subject any more, so they stop at once. */
  async deleteApiToken(id: number): Promise<void> {
    checkId(id, 'API token');
    const deleted = await this.s.db.result('DELETE FROM api_tokens WHERE id = $1', [id]);
    if (deleted.rowCount === 0) throw notFound('API token');
  }

  /**
   * The caller holds the business row lock, so two concurrent creates cannot both pass the count.
   * `holder`: the person who sees the secret (null for the operator key and the demo merchant's seeding).
   */
  async insertApiToken(t: Tx, businessId: number, input: ApiTokenInput, apiKey: string, secretHash: string, holder: number | null = null): Promise<ApiTokenRow> {
    const { n } = await t.one<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [businessId]);
    if (n >= MAX_API_TOKENS_PER_BUSINESS) throw new AppError('API_TOKEN_LIMIT');
    const now = this.s.now();
    return t.one<ApiTokenRow>(
      `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc,
         email_merchant, email_user, created_at, updated_at, ip_allowlist, secret_holder_user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10::cidr[], $11) RETURNING ${API_TOKEN_COLUMNS}`,
      [
        businessId,
        apiKey,
        secretHash,
        input.notification_email,
        input.webhook_url,
        seal(this.s.config.masterKey, input.webhook_hash),
        input.email_merchant ?? false,
        input.email_user ?? false,
        now,
        storedAllowlist(input.ip_allowlist),
        holder,
      ],
    );
  }
}
