// API tokens of a business (docs/contract/authentication.md): at most two, the secret shown once and kept
// as its argon2id hash, its webhook URL checked, its IP allowlist for disbursements; regenerated or
// deleted, its access tokens stop at once.
import type { Base } from '../base';
import type { Tx } from '../db';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import { seal } from '../crypto/secretbox';
import { AppError } from '../errors';
import { allowlistErrors } from '../domain/ip-allowlist';
import type { NotificationService } from '../notifications/notifications';
import { API_TOKEN_COLUMNS, apiTokenRecord } from '../api-records/merchant';
import type { ApiTokenRecord, ApiTokenRow } from '../api-records/merchant';
import { hashSecret, newCredentials } from './access-tokens';
import { checkId, defined, lockBusiness, mapPage, MAX_API_TOKENS_PER_BUSINESS, notFound, storedAllowlist, throwIfAny, updateSql } from './inputs';
import type { ApiTokenInput, ApiTokenPatch } from './inputs';

export class ApiTokenService {
  constructor(readonly s: Base & { notifications: NotificationService }) {}

  /** The secret is in this answer only; the database keeps its argon2id hash. */
  async createApiToken(businessId: number, input: ApiTokenInput): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(businessId, 'business');
    if (input.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', input.ip_allowlist, this.s.config.appEnv === 'live'));
    await this.s.notifications.assertWebhookUrlAllowed(input.webhook_url);
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const row = await this.s.db.tx(async (t) => {
      await lockBusiness(t, businessId);
      return this.insertApiToken(t, businessId, input, creds.apiKey, secretHash);
    });
    return { ...apiTokenRecord(row), api_secret: creds.apiSecret };
  }

  async listApiTokens(businessId: number, page: PageRequest): Promise<ListPage<ApiTokenRecord>> {
    checkId(businessId, 'business');
    return this.s.db.task(async (t) => {
      if (!(await t.oneOrNone('SELECT 1 FROM businesses WHERE id = $1', [businessId]))) throw notFound('business');
      const sql = `SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE business_id = $1`;
      return mapPage(await listPage<ApiTokenRow>(t, { sql, values: [businessId], key: BY_ID, direction: 'ASC' }, page), apiTokenRecord);
    });
  }

  async updateApiToken(id: number, patch: ApiTokenPatch): Promise<ApiTokenRecord> {
    checkId(id, 'API token');
    if (patch.ip_allowlist) throwIfAny(allowlistErrors('ip_allowlist', patch.ip_allowlist, this.s.config.appEnv === 'live'));
    if (patch.webhook_url !== undefined) await this.s.notifications.assertWebhookUrlAllowed(patch.webhook_url);
    const { webhook_hash, ip_allowlist, ...columns } = patch;
    const values: Record<string, unknown> = { ...defined(columns), updated_at: this.s.now() };
    if (webhook_hash !== undefined) values.webhook_hash_enc = seal(this.s.config.masterKey, webhook_hash);
    if (ip_allowlist !== undefined) values.ip_allowlist = storedAllowlist(ip_allowlist);
    const row = await this.s.db.oneOrNone<ApiTokenRow>(updateSql('api_tokens', values, [], ['ip_allowlist']) + ` WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`, [id]);
    if (!row) throw notFound('API token');
    return apiTokenRecord(row);
  }

  /** New key and secret; the generation moves on, so access tokens issued before stop at once. */
  async regenerateApiToken(id: number): Promise<ApiTokenRecord & { api_secret: string }> {
    checkId(id, 'API token');
    const creds = newCredentials(this.s.config.appEnv);
    const secretHash = await hashSecret(creds.apiSecret);
    const row = await this.s.db.oneOrNone<ApiTokenRow>(
      `UPDATE api_tokens SET api_key = $2, secret_hash = $3, generation = generation + 1, updated_at = $4
       WHERE id = $1 RETURNING ${API_TOKEN_COLUMNS}`,
      [id, creds.apiKey, secretHash, this.s.now()],
    );
    if (!row) throw notFound('API token');
    return { ...apiTokenRecord(row), api_secret: creds.apiSecret };
  }

  /** Access tokens find no row for their subject any more, so they stop at once. */
  async deleteApiToken(id: number): Promise<void> {
    checkId(id, 'API token');
    const deleted = await this.s.db.result('DELETE FROM api_tokens WHERE id = $1', [id]);
    if (deleted.rowCount === 0) throw notFound('API token');
  }

  /** The caller holds the business row lock, so two concurrent creates cannot both pass the count. */
  async insertApiToken(t: Tx, businessId: number, input: ApiTokenInput, apiKey: string, secretHash: string): Promise<ApiTokenRow> {
    const { n } = await t.one<{ n: number }>('SELECT count(*)::int AS n FROM api_tokens WHERE business_id = $1', [businessId]);
    if (n >= MAX_API_TOKENS_PER_BUSINESS) throw new AppError('API_TOKEN_LIMIT');
    const now = this.s.now();
    return t.one<ApiTokenRow>(
      `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc,
         email_merchant, email_user, created_at, updated_at, ip_allowlist)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10::cidr[]) RETURNING ${API_TOKEN_COLUMNS}`,
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
      ],
    );
  }
}
