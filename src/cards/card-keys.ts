// The card RSA key, encrypted_card decryption, card fingerprints (docs/contract/cards.md).
// Keys live in card_keys (private half sealed with MASTER_KEY), shared by every process and cached
// in each. After a rotation the previous key keeps decrypting until its expires_at (grace period).
import { createPrivateKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { masterKeys, openWithAny, seal } from '../crypto/secretbox';
import { aesCbcDecrypt, generateCardKeyPair, parseCardJson, parseEncryptedCard, rsaOaepSha1Decrypt } from './card-crypto';
import type { Tx } from '../db';
import { DISPUTING_CARDS, fingerprint, fingerprintKey, maskPan, toCardDetails, validateCard } from '../domain/card';
import type { CardDetails } from '../domain/card';
import type { CollectionRow } from '../domain/collection';
import { apiTime } from '../domain/time';
import { AppError, validationError } from '../errors';
import type { Base } from '../base';

/** How long a replaced key still decrypts: merchants may hold the old public key that long. */
export const KEY_GRACE_MS = 24 * 3_600_000;
/** Each process re-reads the keys at least this often, so it notices another one's rotation. */
const RELOAD_EVERY_MS = 60_000;
/** Serialises key creation and rotation across processes. */
const KEY_LOCK = 4_242_006;

interface KeyRow {
  key_id: string;
  public_pem: string;
  private_pem_enc: string;
  created_at: Date;
  retired_at: Date | null;
  expires_at: Date | null;
}

interface LoadedKey {
  keyId: string;
  publicPem: string;
  privateKey: KeyObject;
  /** null for the current key */
  expiresAt: Date | null;
}

interface KeyCache {
  current: LoadedKey;
  /** retired keys still within their grace period */
  previous: LoadedKey[];
  loadedAtMs: number;
}

/** The API's CardKey record. */
export interface CardKeyInfo {
  key_id: string;
  created_at: string;
  previous_key_id: string | null;
  previous_key_expires_at: string | null;
}

function newKeyId(now: Date): string {
  const stamp = now.toISOString().slice(0, 19).replace(/[-:]/g, '');
  return `ck_${stamp}_${randomBytes(3).toString('hex')}`;
}

export const FINGERPRINT_SETTING = 'card-fingerprint-key';

/** The one answer to any decryption failure, whatever the cause. */
function decryptionFailed(): AppError {
  return new AppError('CARD_DECRYPTION_FAILED');
}

export class CardService {
  private cache: KeyCache | null = null;
  /** derived from MASTER_KEY at first, then kept sealed in the database so that it survives a rotation */
  private fingerprintKey: Buffer;
  /** the published sandbox test card numbers: the 3-D Secure cards of the configuration and the disputing cards */
  private readonly testCards: ReadonlySet<string>;
  /** fingerprints of those numbers only under the key in use, made once each (emptied when the key is loaded) */
  private readonly testCardPrints = new Map<string, string>();

  constructor(readonly s: Base) {
    this.fingerprintKey = fingerprintKey(s.config.masterKey);
    this.testCards = new Set([s.config.sandboxCard3dsSuccess, s.config.sandboxCard3dsFailure, DISPUTING_CARDS.lost, DISPUTING_CARDS.won]);
  }

  /** The deployment's fingerprint key: stored (sealed) on first start, read back ever after. */
  private async loadFingerprintKey(): Promise<void> {
    const keys = masterKeys(this.s.config);
    await this.s.db.none('INSERT INTO sealed_settings (name, value_enc) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      FINGERPRINT_SETTING,
      seal(this.s.config.masterKey, this.fingerprintKey.toString('base64')),
    ]);
    const row = await this.s.db.one<{ value_enc: string }>('SELECT value_enc FROM sealed_settings WHERE name = $1', [FINGERPRINT_SETTING]);
    try {
      this.fingerprintKey = Buffer.from(openWithAny(keys, row.value_enc).plaintext, 'base64');
      this.testCardPrints.clear();
    } catch {
      throw new Error('the card fingerprint key cannot be opened: is MASTER_KEY (or MASTER_KEY_PREVIOUS) the one it was sealed with?');
    }
  }

  /** At start-up: make the first RSA key pair if there is none, then load the keys. */
  async ensureKey(): Promise<void> {
    await this.loadFingerprintKey();
    const current = await this.s.db.oneOrNone('SELECT key_id FROM card_keys WHERE retired_at IS NULL');
    if (!current) {
      await this.s.db.tx('card-key-create', async (t) => {
        await t.one('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
        const again = await t.oneOrNone('SELECT key_id FROM card_keys WHERE retired_at IS NULL');
        if (again) return;
        const created = await this.insertKey(t, this.s.now());
        this.s.log.info('card key created', { key_id: created.key_id });
      });
    }
    await this.load();
  }

  /** A new current key; the old one is retired and keeps decrypting for KEY_GRACE_MS. */
  async rotate(): Promise<CardKeyInfo> {
    const now = this.s.now();
    const info = await this.s.db.tx('card-key-rotate', async (t) => {
      await t.one('SELECT pg_advisory_xact_lock($1)', [KEY_LOCK]);
      const expiresAt = new Date(now.getTime() + KEY_GRACE_MS);
      const old = await t.oneOrNone<{ key_id: string }>(
        'UPDATE card_keys SET retired_at = $1, expires_at = $2 WHERE retired_at IS NULL RETURNING key_id',
        [now, expiresAt],
      );
      // A private key past its grace period decrypts nothing any more: do not keep it at all.
      await t.none('DELETE FROM card_keys WHERE expires_at <= $1', [now]);
      const created = await this.insertKey(t, now);
      return {
        key_id: created.key_id,
        created_at: apiTime(created.created_at),
        previous_key_id: old?.key_id ?? null,
        previous_key_expires_at: old ? apiTime(expiresAt) : null,
      };
    });
    this.s.log.info('card key rotated', { key_id: info.key_id, previous_key_id: info.previous_key_id });
    await this.load();
    return info;
  }

  /** The current public key (SubjectPublicKeyInfo PEM). */
  async publicKeyPem(): Promise<string> {
    return (await this.publicKey()).public_key;
  }

  /** The current public key with its id, as GET /v1/public-key shows it. */
  async publicKey(): Promise<{ key_id: string; public_key: string }> {
    const { keyId, publicPem } = (await this.keys()).current;
    return { key_id: keyId, public_key: publicPem };
  }

  /**
   * encrypted_card (either form) -> the decrypted JSON object. Any failure, whatever its cause, is
   * the same CARD_DECRYPTION_FAILED.
   */
  async decrypt(encrypted: string): Promise<Record<string, unknown>> {
    const parsed = typeof encrypted === 'string' ? parseEncryptedCard(encrypted) : null;
    if (!parsed) throw decryptionFailed();
    const opened = await this.rsaOpen(parsed.form === 'plain' ? parsed.block : parsed.wrappedKey);
    if (!opened) throw decryptionFailed();
    if (parsed.form === 'plain') return this.json(opened, true);
    const { text, valid } = aesCbcDecrypt(opened, parsed.iv, parsed.ciphertext);
    opened.fill(0);
    return this.json(text, valid);
  }

  /** Decrypt and validate: the card, or VALIDATION_ERROR naming every broken field (never a value). */
  async decryptCard(encrypted: string): Promise<{ card: CardDetails }> {
    const obj = await this.decrypt(encrypted);
    const errors = validateCard(obj, this.s.now());
    if (errors.length > 0) throw validationError(errors);
    return { card: toCardDetails(obj) };
  }

  /** The keyed one-way fingerprint of a card number (hex HMAC-SHA256). */
  fingerprint(pan: string): string {
    return fingerprint(this.fingerprintKey, pan);
  }

  /**
   * The fingerprint of a published test card (the sandbox's 3-D Secure and disputing cards), kept once made:
   * every 3-D Secure answer and every disputed payment read compares with them, and their numbers are public,
   * so keeping them holds no secret. Never for a customer's card, whose number is kept nowhere: any other number
   * is refused (an Error that does not repeat it), so what is kept stays those few cards.
   */
  testCardFingerprint(pan: string): string {
    if (!this.testCards.has(pan)) throw new Error('testCardFingerprint takes only a published sandbox test card number');
    let print = this.testCardPrints.get(pan);
    if (print === undefined) {
      print = this.fingerprint(pan);
      this.testCardPrints.set(pan, print);
    }
    return print;
  }

  /**
   * A card entered on the hosted page: only its masked number and fingerprint go on the PENDING
   * collection (with the fingerprint's first sighting), never the number itself. The first card
   * recorded stays: null when the collection is no longer PENDING or already has a card.
   */
  async recordHostedCard(collectionId: bigint, pan: string): Promise<CollectionRow | null> {
    const masked = maskPan(pan);
    const print = this.fingerprint(pan);
    const now = this.s.now();
    return this.s.db.tx('card-record', async (t) => {
      const row = await t.oneOrNone<CollectionRow>(
        `UPDATE collections SET card_masked = $2, card_fingerprint = $3, updated_at = $4
         WHERE id = $1 AND status = 'PENDING' AND card_masked IS NULL RETURNING *`,
        [collectionId, masked, print, now],
      );
      if (!row) return null;
      await t.none('INSERT INTO card_fingerprints (fingerprint, first_seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [print, now]);
      return row;
    });
  }

  private json(plaintext: Buffer, paddingValid: boolean): Record<string, unknown> {
    const obj = parseCardJson(plaintext);
    plaintext.fill(0);
    if (!obj || !paddingValid) throw decryptionFailed();
    return obj;
  }

  private async insertKey(t: Tx, now: Date): Promise<{ key_id: string; created_at: Date }> {
    const { publicPem, privatePem } = await generateCardKeyPair();
    return t.one(
      `INSERT INTO card_keys (key_id, public_pem, private_pem_enc, created_at) VALUES ($1, $2, $3, $4)
       RETURNING key_id, created_at`,
      [newKeyId(now), publicPem, seal(this.s.config.masterKey, privatePem), now],
    );
  }

  /** Tries the current key, then keys in grace; on a miss, re-reads the keys once if they changed. */
  private async rsaOpen(block: Buffer): Promise<Buffer | null> {
    const first = this.tryKeys(await this.keys(), block);
    if (first) return first;
    const known = this.cache?.current.keyId;
    const now = await this.s.db.oneOrNone<{ key_id: string }>('SELECT key_id FROM card_keys WHERE retired_at IS NULL');
    if (!now || now.key_id === known) return null;
    return this.tryKeys(await this.load(), block);
  }

  private tryKeys(keys: KeyCache, block: Buffer): Buffer | null {
    const at = this.s.now().getTime();
    const usable = [keys.current, ...keys.previous.filter((k) => k.expiresAt && k.expiresAt.getTime() > at)];
    for (const key of usable) {
      const opened = rsaOaepSha1Decrypt(key.privateKey, block);
      if (opened) return opened;
    }
    return null;
  }

  private async keys(): Promise<KeyCache> {
    const fresh = this.cache && this.s.now().getTime() - this.cache.loadedAtMs < RELOAD_EVERY_MS;
    return fresh && this.cache ? this.cache : this.load();
  }

  private async load(): Promise<KeyCache> {
    const now = this.s.now();
    const rows = await this.s.db.any<KeyRow>(
      `SELECT key_id, public_pem, private_pem_enc, created_at, retired_at, expires_at FROM card_keys
       WHERE retired_at IS NULL OR expires_at > $1 ORDER BY created_at DESC`,
      [now],
    );
    const currentRow = rows.find((r) => r.retired_at === null);
    if (!currentRow) throw new Error('no current card key: ensureKey() has not run');
    const previous = rows.filter((r) => r.retired_at !== null).flatMap((r) => this.openKey(r, false));
    this.cache = { current: this.openKey(currentRow, true)[0], previous, loadedAtMs: now.getTime() };
    return this.cache;
  }

  /** Unseals one private key; the current one must open (else start-up stops), an old one may be skipped. */
  private openKey(row: KeyRow, required: boolean): LoadedKey[] {
    try {
      const privateKey = createPrivateKey(openWithAny(masterKeys(this.s.config), row.private_pem_enc).plaintext);
      return [{ keyId: row.key_id, publicPem: row.public_pem, privateKey, expiresAt: row.expires_at }];
    } catch {
      if (required) throw new Error(`the card private key ${row.key_id} cannot be opened: is MASTER_KEY the one it was sealed with?`);
      this.s.log.warn('retired card key cannot be opened; skipped', { key_id: row.key_id });
      return [];
    }
  }
}
