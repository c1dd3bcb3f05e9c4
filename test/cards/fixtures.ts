// Shared by the card tests: a good card, the services of one process without HTTP, and a merchant
// access token made by SQL (so these tests do not depend on the operator API).
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { seal } from '../../src/crypto/secretbox';
import type { Database } from '../../src/db';
import { migrate } from '../../src/db/migrate';
import type { CardDetails } from '../../src/domain/card';
import { createLogger } from '../../src/log';
import { buildServices } from '../../src/wiring';
import type { Services } from '../../src/wiring';
import { hashSecret } from '../../src/merchants/access-tokens';
import type { TestService } from '../helpers/service';

export const GOOD_CARD: CardDetails = {
  full_name: 'Jane Doe',
  card_number: '4000000000003006',
  expiry_month: '12',
  expiry_year: '2030',
  cvv: '737',
  billing_address: '1 Kampala Road',
  billing_city: 'Kampala',
  billing_zip: '00256',
  billing_state: 'Central',
  billing_country: 'UG',
};

/** Small enough for the plain form (213 bytes as JSON): real cards usually need the hybrid one. */
export const SHORT_CARD: CardDetails = {
  ...GOOD_CARD,
  full_name: 'Jane',
  billing_address: '1 Rd',
  billing_city: 'Gulu',
  billing_zip: '',
  billing_state: '',
};

/** A business with one API token, inserted directly, and an access token for it: "JWT <jwt>". */
export async function merchantToken(svc: TestService, expiresInSeconds = 900): Promise<string> {
  const db = svc.services.db;
  const business = await db.one<{ id: number }>("INSERT INTO businesses (name, default_currency) VALUES ('Card Test Shop', 'UGX') RETURNING id");
  const apiKey = `pk_sandbox_${randomBytes(12).toString('hex')}`;
  const secret = `sk_sandbox_${randomBytes(24).toString('hex')}`;
  await db.none(
    `INSERT INTO api_tokens (business_id, api_key, secret_hash, notification_email, webhook_url, webhook_hash_enc)
     VALUES ($1, $2, $3, 'shop@example.org', 'https://shop.example.org/hook', $4)`,
    [business.id, apiKey, await hashSecret(secret), seal(svc.config.masterKey, 'whsec-card-test-0123456789')],
  );
  const res = await svc.anon.post('/v1/auth/token', { api_key: apiKey, expires_in: expiresInSeconds }, { headers: { 'secret-key': secret } });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return res.body.data.token as string;
}

/** Runs fn and returns what it threw (fails the test when it throws nothing). */
export async function thrown(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure, got none');
}

export const TEST_MASTER_KEY = Buffer.alloc(32, 42).toString('base64');

export interface CardProcess {
  services: Services;
  logs: string[];
}

/** One service process's services on a database (migrated), its card key ensured, as start-up does. */
export async function cardProcess(database: Database, o: { now?: () => Date; masterKey?: string } = {}): Promise<CardProcess> {
  const config = loadConfig({
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'paycollect-cards-')),
    MASTER_KEY: o.masterKey ?? TEST_MASTER_KEY,
    OPERATOR_API_KEY: 'op_cards_test_key_0123456789',
    SEED_DEMO: 'false',
  });
  const logs: string[] = [];
  await migrate(database.db);
  const services = buildServices({ config, db: database.db, log: createLogger((l) => logs.push(l), 'debug'), now: o.now ?? (() => new Date()) });
  await services.cards.ensureKey();
  return { services, logs };
}
