// Proves secrets rotation without downtime: a new JWT_SECRET keeps tokens signed by the previous one valid while it is listed (key id in the header), and a new MASTER_KEY opens everything sealed with the old one (two-factor secrets included) until the re-seal command has moved it all to the new key, card fingerprints included.
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { encryptCard } from '../../scripts/encrypt-card';
import { openWithAny } from '../../src/crypto/secretbox';
import type { Database } from '../../src/db';
import { keyId } from '../../src/merchants/access-tokens';
import { resealAll, SEALED_COLUMNS } from '../../src/crypto/master-key-rotation';
import { GOOD_CARD } from '../cards/fixtures';
import { freshDatabase } from '../helpers/db';
import { setupMerchant } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, SessionClient, totpCode } from '../helpers/users';

const secret = () => randomBytes(32).toString('base64url');
const masterKey = () => randomBytes(32).toString('base64');

/** One process of the deployment after another, on one database. */
async function withService<T>(database: Database, env: Record<string, string>, fn: (svc: TestService) => Promise<T>): Promise<T> {
  const svc = await startTestService({ database, env });
  try {
    return await fn(svc);
  } finally {
    await svc.close();
  }
}

async function balances(svc: TestService, token: string) {
  return (await svc.merchant(token).get('/v1/data/wallets/balances')).status;
}

describe('JWT_SECRET rotation', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
  }, 180_000);
  afterAll(() => database.close());

  it('accepts tokens of the previous secret while it is listed, and names each key in the token header', async () => {
    const [oldSecret, newSecret] = [secret(), secret()];
    const MASTER_KEY = masterKey();
    const { oldToken, credentials } = await withService(database, { JWT_SECRET: oldSecret, MASTER_KEY }, async (svc) => {
      const m = await setupMerchant(svc);
      const res = await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } });
      return { oldToken: res.body.data.token as string, credentials: m };
    });
    expect(decodeProtectedHeader(oldToken.slice('JWT '.length)).kid).toBe(keyId(oldSecret));

    const newToken = await withService(database, { JWT_SECRET: newSecret, JWT_PREVIOUS_SECRETS: oldSecret, MASTER_KEY }, async (svc) => {
      expect(await balances(svc, oldToken)).toBe(200);
      const res = await svc.anon.post('/v1/auth/token', { api_key: credentials.apiKey }, { headers: { 'secret-key': credentials.apiSecret } });
      const token = res.body.data.token as string;
      expect(decodeProtectedHeader(token.slice('JWT '.length)).kid).toBe(keyId(newSecret));
      expect(await balances(svc, token)).toBe(200);
      return token;
    });

    // once the old secret is no longer listed (its tokens have expired), only the new one counts
    await withService(database, { JWT_SECRET: newSecret, MASTER_KEY }, async (svc) => {
      expect(await balances(svc, newToken)).toBe(200);
      const refused = await svc.merchant(oldToken).get('/v1/data/wallets/balances');
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('UNAUTHORIZED');
    });
  }, 180_000);
});

describe('MASTER_KEY rotation', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
  }, 180_000);
  afterAll(() => database.close());

  it('opens old secrets during the rotation and re-seals every one of them with the new key', async () => {
    const [k1, k2] = [masterKey(), masterKey()];
    const JWT_SECRET = secret();
    const before = await withService(database, { MASTER_KEY: k1, JWT_SECRET }, async (svc) => {
      const m = await setupMerchant(svc);
      const operator = await createUser(svc, { role: 'operator_admin', totp: true });
      const publicPem = (await svc.merchant((await svc.anon.post('/v1/auth/token', { api_key: m.apiKey }, { headers: { 'secret-key': m.apiSecret } })).body.data.token).get('/v1/public-key')).body.data.public_key;
      return { webhookHash: m.webhookHash, publicPem, fingerprint: svc.services.cards.fingerprint(GOOD_CARD.card_number), operator };
    });

    // the new key in place, the old one still accepted: the service works, then the command re-seals
    await withService(database, { MASTER_KEY: k2, MASTER_KEY_PREVIOUS: k1, JWT_SECRET }, async (svc) => {
      expect((await svc.services.cards.decryptCard(encryptCard(before.publicPem, GOOD_CARD))).card.card_number).toBe(GOOD_CARD.card_number);
      // an operator's two-factor secret, sealed with the old key, still signs in
      const session = new SessionClient(svc);
      expect((await session.login(before.operator.email, before.operator.password)).body.data.state).toBe('totp_required');
      expect((await session.post('/v1/admin/session/totp', { code: totpCode(svc) })).status).toBe(200);
      const report = await resealAll(svc.services.db, svc.config);
      // everything was sealed with the old key; each kind of secret the merchant set-up made is re-sealed
      for (const { table, column } of SEALED_COLUMNS) expect(report[`${table}.${column}`].current).toBe(0);
      for (const k of ['api_tokens.webhook_hash_enc', 'mids.merchant_password_enc', 'card_keys.private_pem_enc', 'sealed_settings.value_enc', 'users.totp_secret_enc']) {
        expect(report[k].resealed).toBeGreaterThan(0);
      }
      expect(await resealAll(svc.services.db, svc.config)).toEqual(
        Object.fromEntries(Object.entries(report).map(([t, r]) => [t, { resealed: 0, current: r.resealed + r.current }])),
      );
    });

    // the old key gone: everything opens with the new one alone, and card fingerprints are unchanged
    await withService(database, { MASTER_KEY: k2, JWT_SECRET }, async (svc) => {
      for (const { table, column } of SEALED_COLUMNS) {
        const rows = await svc.services.db.any<{ sealed: string }>('SELECT $1:name AS sealed FROM $2:name WHERE $1:name IS NOT NULL', [column, table]);
        for (const r of rows) expect(openWithAny([Buffer.from(k2, 'base64')], r.sealed).index).toBe(0);
      }
      const hashes = await svc.services.db.any<{ webhook_hash_enc: string }>('SELECT webhook_hash_enc FROM api_tokens');
      expect(hashes.map((h) => openWithAny([Buffer.from(k2, 'base64')], h.webhook_hash_enc).plaintext)).toContain(before.webhookHash);
      expect((await svc.services.cards.decryptCard(encryptCard(before.publicPem, GOOD_CARD))).card.card_number).toBe(GOOD_CARD.card_number);
      expect(svc.services.cards.fingerprint(GOOD_CARD.card_number)).toBe(before.fingerprint);
    });
  }, 180_000);

  it('refuses to start without a key that opens what is sealed', async () => {
    await expect(withService(database, { MASTER_KEY: masterKey(), JWT_SECRET: secret() }, async () => undefined)).rejects.toThrow();
  }, 60_000);
});
