// Proves the card key's life: made once on first start, sealed at rest, kept across restarts (a test card's fingerprint kept once made), rotated with a 24-hour grace period, noticed by other processes, one current key under concurrency.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { open } from '../../src/crypto/secretbox';
import { openPostgres } from '../../src/db';
import type { Database } from '../../src/db';
import { KEY_GRACE_MS } from '../../src/cards/card-keys';
import { DISPUTING_CARDS } from '../../src/domain/card';
import { encryptCard } from '../../scripts/encrypt-card';
import { createRealDatabase, freshDatabase, SHARED_PG_URL } from '../helpers/db';
import { needsRealServer } from '../helpers/requires';
import { cardProcess, GOOD_CARD, TEST_MASTER_KEY, thrown } from './fixtures';

interface KeyRow {
  key_id: string;
  public_pem: string;
  private_pem_enc: string;
  retired_at: Date | null;
  expires_at: Date | null;
}

const keyRows = (database: Database) => database.db.any<KeyRow>('SELECT * FROM card_keys ORDER BY created_at, key_id');

describe('first start and restarts', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('makes one 2048-bit key pair on first start, the private half sealed with MASTER_KEY', async () => {
    expect(await keyRows(database).catch(() => [])).toEqual([]);
    const first = await cardProcess(database);
    const rows = await keyRows(database);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row.retired_at).toBeNull();
    expect(row.public_pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(createPublicKey(row.public_pem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(row.private_pem_enc).not.toContain('PRIVATE KEY');
    expect(row.private_pem_enc).toMatch(/^v1\./);
    const privatePem = open(Buffer.from(TEST_MASTER_KEY, 'base64'), row.private_pem_enc);
    expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(createPublicKey(createPrivateKey(privatePem)).export({ type: 'spki', format: 'pem' })).toBe(row.public_pem);
    expect(await first.services.cards.publicKeyPem()).toBe(row.public_pem);
    expect(first.logs.join('\n')).toContain('card key created');
    expect(first.logs.join('\n')).not.toContain('PRIVATE KEY');
  });

  it('keeps the key across restarts, and cards made for it still decrypt', async () => {
    const [before] = await keyRows(database);
    const restarted = await cardProcess(database);
    expect(await keyRows(database)).toEqual([before]);
    expect(await restarted.services.cards.publicKeyPem()).toBe(before.public_pem);
    expect((await restarted.services.cards.decryptCard(encryptCard(before.public_pem, GOOD_CARD))).card).toEqual(GOOD_CARD);
  });

  it("keeps a test card's fingerprint once made: the card's own, each card its own", async () => {
    const { services } = await cardProcess(database);
    const [success, failure] = [services.config.sandboxCard3dsSuccess, services.config.sandboxCard3dsFailure];
    for (let i = 0; i < 2; i++) {
      expect(services.cards.testCardFingerprint(success)).toBe(services.cards.fingerprint(success));
      expect(services.cards.testCardFingerprint(failure)).toBe(services.cards.fingerprint(failure));
    }
    expect(services.cards.testCardFingerprint(success)).not.toBe(services.cards.testCardFingerprint(failure));
  });

  it('keeps the fingerprints of the published test cards only: any other number is refused and nothing more is kept', async () => {
    const { services } = await cardProcess(database);
    const tests = [services.config.sandboxCard3dsSuccess, services.config.sandboxCard3dsFailure, DISPUTING_CARDS.lost, DISPUTING_CARDS.won];
    // what the cache holds (private: read here only to show it stays those four)
    const kept = () => (services.cards as unknown as { testCardPrints: Map<string, string> }).testCardPrints;
    const prints = tests.map((pan) => services.cards.testCardFingerprint(pan));
    expect(prints).toEqual(tests.map((pan) => services.cards.fingerprint(pan)));
    expect(new Set(prints).size).toBe(4);
    expect([...kept().keys()].sort()).toEqual([...tests].sort());
    for (const other of ['4111111111111111', '4000000000003007', '', `${DISPUTING_CARDS.lost} `]) {
      const e = await thrown(async () => services.cards.testCardFingerprint(other));
      expect(e.message).toBe('testCardFingerprint takes only a published sandbox test card number');
      if (other) expect(e.message).not.toContain(other.trim());
    }
    expect(kept().size).toBe(4);
    // the test cards' fingerprints are as they were
    expect(tests.map((pan) => services.cards.testCardFingerprint(pan))).toEqual(prints);
  });

  it('stops start-up with a clear message when MASTER_KEY is not the one the key was sealed with', async () => {
    const e = await thrown(() => cardProcess(database, { masterKey: Buffer.alloc(32, 1).toString('base64') }));
    expect(e.message).toMatch(/MASTER_KEY/);
    expect(e.message).not.toMatch(/PRIVATE KEY/);
  });
});

describe('rotation', () => {
  let database: Database;
  let clock: Date;
  const at = (iso: string) => (clock = new Date(iso));
  const now = () => clock;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('keeps the old key decrypting for 24 hours, and not after', async () => {
    at('2025-11-25T10:00:00Z');
    const { services } = await cardProcess(database, { now });
    const cards = services.cards;
    const oldPem = await cards.publicKeyPem();
    const [oldRow] = await keyRows(database);
    const madeForOld = encryptCard(oldPem, GOOD_CARD);

    at('2025-11-25T10:15:00Z');
    const info = await cards.rotate();
    expect(info).toEqual({
      key_id: expect.stringMatching(/^ck_20251125T101500_[0-9a-f]{6}$/),
      created_at: '2025-11-25T10:15:00Z',
      previous_key_id: oldRow.key_id,
      previous_key_expires_at: '2025-11-26T10:15:00Z',
    });
    const newPem = await cards.publicKeyPem();
    expect(newPem).not.toBe(oldPem);
    const rows = await keyRows(database);
    expect(rows.map((r) => [r.key_id, r.retired_at?.toISOString() ?? null, r.expires_at?.toISOString() ?? null])).toEqual([
      [oldRow.key_id, '2025-11-25T10:15:00.000Z', '2025-11-26T10:15:00.000Z'],
      [info.key_id, null, null],
    ]);

    expect((await cards.decryptCard(madeForOld)).card).toEqual(GOOD_CARD);
    expect((await cards.decryptCard(encryptCard(newPem, GOOD_CARD))).card).toEqual(GOOD_CARD);
    at('2025-11-26T10:14:59Z');
    expect((await cards.decryptCard(madeForOld)).card).toEqual(GOOD_CARD);

    at('2025-11-26T10:15:00Z');
    expect((await thrown(() => cards.decryptCard(madeForOld))).code).toBe('CARD_DECRYPTION_FAILED');
    expect((await cards.decryptCard(encryptCard(newPem, GOOD_CARD))).card).toEqual(GOOD_CARD);
  });

  it('forgets private keys past their grace period at the next rotation', async () => {
    at('2025-11-27T00:00:00Z');
    const { services } = await cardProcess(database, { now });
    const before = await keyRows(database);
    const info = await services.cards.rotate();
    const after = await keyRows(database);
    expect(after.map((r) => r.key_id)).toEqual([before[1].key_id, info.key_id]);
    expect(after[0].expires_at?.getTime()).toBe(clock.getTime() + KEY_GRACE_MS);
  });

  it('is noticed by another process: at once for decryption, within a minute for the public key', async () => {
    at('2025-12-01T08:00:00Z');
    const a = (await cardProcess(database, { now })).services.cards;
    const b = (await cardProcess(database, { now })).services.cards;
    const oldPem = await b.publicKeyPem();
    await a.rotate();
    const newPem = await a.publicKeyPem();
    expect(newPem).not.toBe(oldPem);
    expect((await b.decryptCard(encryptCard(newPem, GOOD_CARD))).card).toEqual(GOOD_CARD);
    expect((await b.decryptCard(encryptCard(oldPem, GOOD_CARD))).card).toEqual(GOOD_CARD);

    const c = (await cardProcess(database, { now })).services.cards;
    await a.rotate();
    const newest = await a.publicKeyPem();
    expect(await c.publicKeyPem()).not.toBe(newest);
    at('2025-12-01T08:01:01Z');
    expect(await c.publicKeyPem()).toBe(newest);
  });

  it('refuses a second current key in the database itself', async () => {
    const [current] = await database.db.any<KeyRow>('SELECT * FROM card_keys WHERE retired_at IS NULL');
    await expect(
      database.db.none('INSERT INTO card_keys (key_id, public_pem, private_pem_enc) VALUES ($1, $2, $3)', ['ck_extra', current.public_pem, current.private_pem_enc]),
    ).rejects.toThrow(/card_keys_one_current/);
    expect(await database.db.one('SELECT count(*)::int AS n FROM card_keys WHERE retired_at IS NULL')).toEqual({ n: 1 });
  });
});

needsRealServer().it('ends with one current key when several processes start or rotate together (real PostgreSQL)', async () => {
  const created = await createRealDatabase(SHARED_PG_URL);
  const pools = await Promise.all([1, 2, 3, 4].map(() => openPostgres(created.url, 2)));
  try {
    const processes = await Promise.all(pools.map((p) => cardProcess(p)));
    const pems = await Promise.all(processes.map((p) => p.services.cards.publicKeyPem()));
    expect(new Set(pems).size).toBe(1);
    expect(await pools[0].db.one('SELECT count(*)::int AS n FROM card_keys')).toEqual({ n: 1 });

    const rotations = await Promise.all(processes.slice(0, 3).map((p) => p.services.cards.rotate()));
    const rows = await pools[0].db.any<KeyRow>('SELECT * FROM card_keys');
    expect(rows).toHaveLength(4);
    expect(rows.filter((r) => r.retired_at === null)).toHaveLength(1);
    const previous = rotations.map((r) => r.previous_key_id).sort();
    expect(new Set(previous).size).toBe(3);
    const current = rows.find((r) => r.retired_at === null)!;
    expect(rotations.map((r) => r.key_id)).toContain(current.key_id);
    for (const p of processes) expect((await p.services.cards.decryptCard(encryptCard(current.public_pem, GOOD_CARD))).card).toEqual(GOOD_CARD);
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await created.drop();
  }
});
