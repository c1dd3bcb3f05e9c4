// The merchant's side of a direct card payment: encrypts card details into `encrypted_card` exactly as
// the specification describes (endpoint 3). Self-contained (node:crypto only) so it can be copied.
//
//   npx tsx scripts/encrypt-card.ts --key public.pem --card card.json
//   PAYCOLLECT_TOKEN="JWT eyJ..." npx tsx scripts/encrypt-card.ts --key-url https://host/v1/public-key --card card.json
//   npx tsx scripts/encrypt-card.ts --key public.pem --card -        (card JSON on stdin)
//   curl ... /v1/public-key | npx tsx scripts/encrypt-card.ts --card card.json   (key on stdin)
import { constants, createCipheriv, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** RSA-OAEP with SHA-1 on a 2048-bit key carries at most 256 - 2 x 20 - 2 bytes. */
export const PLAIN_FORM_MAX_BYTES = 214;
const RSA_MODULUS_BITS = 2048;
const AES_KEY_BYTES = 32;
const IV_BYTES = 16;
const FETCH_TIMEOUT_MS = 10_000;

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
 * encrypted_card for these card details. `card` is the card details object, or its JSON already
 * serialised (sent byte for byte). 214 bytes or fewer: base64(RSA-OAEP-SHA1(json)); more: the
 * hybrid form base64(b64(AES-256-CBC(json)) + "::" + b64(iv) + "::" + b64(RSA-OAEP-SHA1(aes key))).
 */
export function encryptCard(publicKeyPem: string, card: object | string): string {
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

function readStdin(): string {
  return readFileSync(0, 'utf8');
}

/** "-" = stdin; text starting with "{" = inline JSON; anything else = a file path. */
function readCard(arg: string): string {
  if (arg === '-') return readStdin();
  if (arg.trimStart().startsWith('{')) return arg;
  return readFileSync(arg, 'utf8');
}

/** Compact JSON (smaller, so more cards fit the plain form); the parser's message could quote card data. */
function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    throw new Error('the card details are not valid JSON');
  }
}

async function fetchKey(url: string, token: string | undefined): Promise<string> {
  if (!token) throw new Error('--key-url needs an access token: --token "JWT ..." or PAYCOLLECT_TOKEN');
  const authorization = token.startsWith('JWT ') ? token : `JWT ${token}`;
  const res = await fetch(url, { headers: { authorization }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

const USAGE = `usage: encrypt-card --card <file | '{json}' | -> [--key <file | -> | --key-url <url> [--token "JWT ..."]]
  The public key is read from --key, fetched from --key-url (token from --token or PAYCOLLECT_TOKEN),
  or read from stdin. The card JSON is compacted; its UTF-8 size picks the plain or hybrid form.
  Prints encrypted_card. Prefer a file or stdin for the card: command lines end up in shell history.`;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { key: { type: 'string' }, 'key-url': { type: 'string' }, token: { type: 'string' }, card: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || !values.card) {
    process.stderr.write(USAGE + '\n');
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  if (values.card === '-' && (values.key === undefined || values.key === '-') && !values['key-url']) {
    throw new Error('only one of --key and --card can come from stdin');
  }
  const pem = values['key-url']
    ? await fetchKey(values['key-url'], values.token ?? process.env.PAYCOLLECT_TOKEN)
    : values.key && values.key !== '-'
      ? readFileSync(values.key, 'utf8')
      : readStdin();
  process.stdout.write(encryptCard(pem, compactJson(readCard(values.card))) + '\n');
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: Error) => {
    process.stderr.write(`encrypt-card: ${e.message}\n`);
    process.exitCode = 1;
  });
}
