// Secrets at rest (MID passwords, webhook hashes, the card private key) are sealed with MASTER_KEY
// using AES-256-GCM: "v1.<iv>.<tag>.<ciphertext>", each part base64url.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;

export function seal(masterKey: Buffer, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** The keys that open sealed values: MASTER_KEY first, then MASTER_KEY_PREVIOUS (during a rotation). */
export function masterKeys(config: { masterKey: Buffer; masterKeyPrevious: Buffer[] }): Buffer[] {
  return [config.masterKey, ...config.masterKeyPrevious];
}

/** Opens with the first key that fits (GCM refuses any other); `index` says which (0 = the current key). */
export function openWithAny(keys: Buffer[], sealed: string): { plaintext: string; index: number } {
  let last: unknown = new Error('no key to open a sealed value');
  for (const [index, key] of keys.entries()) {
    try {
      return { plaintext: open(key, sealed), index };
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

export function open(masterKey: Buffer, sealed: string): string {
  const [version, iv, tag, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
