// The service's side of encrypted_card (docs/contract/cards.md): the RSA key pair, and the parsing and
// opening of both forms. Every function answers null on any failure rather than saying what failed,
// so the caller can give one uniform error and offer no oracle.
import { createDecipheriv, constants, generateKeyPair, privateDecrypt } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

export const RSA_MODULUS_BITS = 2048;
const RSA_BLOCK_BYTES = RSA_MODULUS_BITS / 8;
/** encrypted_card longer than this is refused before any work (a real card needs about 2 KB). */
export const MAX_ENCRYPTED_CARD_CHARS = 8192;
const AES_KEY_BYTES = 32;
const AES_BLOCK_BYTES = 16;
const SEPARATOR = '::';

export type EncryptedCard =
  | { form: 'plain'; block: Buffer }
  | { form: 'hybrid'; ciphertext: Buffer; iv: Buffer; wrappedKey: Buffer };

const generate = promisify(generateKeyPair);

export async function generateCardKeyPair(): Promise<{ publicPem: string; privatePem: string }> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: RSA_MODULUS_BITS,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicPem: publicKey, privatePem: privateKey };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict standard base64 (line breaks and spaces tolerated, as some encoders wrap lines). */
export function strictBase64(text: string): Buffer | null {
  const compact = text.replace(/[\r\n\t ]/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

/**
 * Splits encrypted_card into its form and parts, checking every size it can without a key.
 * The plain form is one RSA block; the hybrid string is always longer than one block, since its
 * wrapped key alone is a base64 RSA block.
 */
export function parseEncryptedCard(encrypted: string): EncryptedCard | null {
  if (encrypted.length > MAX_ENCRYPTED_CARD_CHARS) return null;
  const outer = strictBase64(encrypted);
  if (!outer) return null;
  if (outer.length === RSA_BLOCK_BYTES) return { form: 'plain', block: outer };
  const parts = outer.toString('latin1').split(SEPARATOR);
  if (parts.length !== 3) return null;
  const [ciphertext, iv, wrappedKey] = parts.map(strictBase64);
  if (!ciphertext || !iv || !wrappedKey) return null;
  if (ciphertext.length === 0 || ciphertext.length % AES_BLOCK_BYTES !== 0) return null;
  if (iv.length !== AES_BLOCK_BYTES || wrappedKey.length !== RSA_BLOCK_BYTES) return null;
  return { form: 'hybrid', ciphertext, iv, wrappedKey };
}

/** RSA-OAEP with SHA-1 for both the OAEP digest and MGF1 (node uses oaepHash for both). */
export function rsaOaepSha1Decrypt(key: KeyObject, block: Buffer): Buffer | null {
  try {
    return privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, block);
  } catch {
    return null;
  }
}

/**
 * AES-256-CBC with PKCS#7, the padding checked here without early exits and the text returned
 * either way with a validity flag, so a bad padding costs the same later work as a bad JSON.
 */
export function aesCbcDecrypt(aesKey: Buffer, iv: Buffer, ciphertext: Buffer): { text: Buffer; valid: boolean } {
  if (aesKey.length !== AES_KEY_BYTES) return { text: Buffer.alloc(0), valid: false };
  const decipher = createDecipheriv('aes-256-cbc', aesKey, iv);
  decipher.setAutoPadding(false);
  const raw = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  const pad = raw[raw.length - 1];
  let bad = (pad === 0 ? 1 : 0) | (pad > AES_BLOCK_BYTES ? 1 : 0);
  for (let i = 1; i <= AES_BLOCK_BYTES; i++) {
    const inPad = i <= pad ? 1 : 0;
    bad |= inPad & (raw[raw.length - i] !== pad ? 1 : 0);
  }
  const valid = bad === 0;
  return { text: valid ? raw.subarray(0, raw.length - pad) : raw, valid };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 JSON that is an object (not an array, not null); else null. */
export function parseCardJson(plaintext: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(utf8.decode(plaintext));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    return value as Record<string, unknown>;
  } catch {
    return null;
  }
}
