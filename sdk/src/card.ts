// Card encryption for a direct card payment (`encrypted_card`), as the service expects it: the card
// details as compact UTF-8 JSON; 214 bytes or fewer: base64(RSA-OAEP-SHA1(json)); more: the hybrid
// form base64(b64(AES-256-CBC(json)) + "::" + b64(iv) + "::" + b64(RSA-OAEP-SHA1(aes key))).
import { constants, createCipheriv, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';

/** The ten fields of a card, all strings: expiry_month 2 digits, expiry_year 4, billing_country 2 letters. */
export interface CardDetails {
  full_name: string;
  card_number: string;
  expiry_month: string;
  expiry_year: string;
  cvv: string;
  billing_address: string;
  billing_city: string;
  billing_zip: string;
  billing_state: string;
  billing_country: string;
}

/** RSA-OAEP with SHA-1 on a 2048-bit key carries at most 256 - 2 x 20 - 2 bytes. */
export const PLAIN_FORM_MAX_BYTES = 214;
const RSA_MODULUS_BITS = 2048;
const AES_KEY_BYTES = 32;
const IV_BYTES = 16;

function rsaOaepSha1(publicKeyPem: string, data: Buffer): Buffer {
  // node's oaepHash sets both the OAEP digest and MGF1's, as the specification's "OAEP (SHA-1)" needs.
  return publicEncrypt({ key: publicKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, data);
}

function checkKey(publicKeyPem: string): void {
  const key = createPublicKey(publicKeyPem);
  if (key.asymmetricKeyType !== 'rsa' || key.asymmetricKeyDetails?.modulusLength !== RSA_MODULUS_BITS) {
    throw new Error('the public key must be a 2048-bit RSA key');
  }
}

/**
 * encrypted_card for these card details, with the PEM key of `GET /v1/public-key`. `card` is the
 * card details object, or its JSON already serialised (sent byte for byte).
 */
export function encryptCard(publicKeyPem: string, card: CardDetails | string): string {
  checkKey(publicKeyPem);
  const json = Buffer.from(typeof card === 'string' ? card : JSON.stringify(card), 'utf8');
  if (json.length <= PLAIN_FORM_MAX_BYTES) return rsaOaepSha1(publicKeyPem, json).toString('base64');
  const aesKey = randomBytes(AES_KEY_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-cbc', aesKey, iv); // PKCS#7 padding is node's default
  const ciphertext = Buffer.concat([cipher.update(json), cipher.final()]);
  const joined = [ciphertext, iv, rsaOaepSha1(publicKeyPem, aesKey)].map((b) => b.toString('base64')).join('::');
  aesKey.fill(0);
  return Buffer.from(joined, 'utf8').toString('base64');
}
