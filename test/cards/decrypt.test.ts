// Proves encrypted_card decryption of both forms (made by an independent merchant-side implementation and by scripts/encrypt-card.ts) and one uniform error for every broken input.
import { constants, createCipheriv, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';
import type { Database } from '../../src/db';
import { AppError } from '../../src/errors';
import type { CardService } from '../../src/cards/card-keys';
import { encryptCard } from '../../scripts/encrypt-card';
import { freshDatabase } from '../helpers/db';
import { cardProcess, GOOD_CARD, SHORT_CARD, thrown } from './fixtures';

// The merchant's side, written straight from the specification's procedure (endpoint 3).
const b64 = (b: Buffer) => b.toString('base64');
function oaep(pem: string, data: Buffer, hash = 'sha1'): Buffer {
  return publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash }, data);
}
function plainForm(pem: string, json: Buffer): string {
  return b64(oaep(pem, json));
}
interface HybridParts {
  ciphertext: Buffer;
  iv: Buffer;
  wrappedKey: Buffer;
}
function hybridParts(pem: string, json: Buffer, o: { keyBytes?: number; ivBytes?: number } = {}): HybridParts {
  const key = randomBytes(o.keyBytes ?? 32);
  const iv = randomBytes(16);
  const cipher = createCipheriv(key.length === 16 ? 'aes-128-cbc' : 'aes-256-cbc', key, iv);
  const ciphertext = Buffer.concat([cipher.update(json), cipher.final()]);
  return { ciphertext, iv: o.ivBytes ? iv.subarray(0, o.ivBytes) : iv, wrappedKey: oaep(pem, key) };
}
function joinParts(parts: Buffer[]): string {
  return b64(Buffer.from(parts.map(b64).join('::')));
}
function hybridForm(pem: string, json: Buffer): string {
  const p = hybridParts(pem, json);
  return joinParts([p.ciphertext, p.iv, p.wrappedKey]);
}
/** The plain form in base64url; retried until it has a character that differs from base64. */
function asBase64url(pem: string, json: Buffer): string {
  for (;;) {
    const text = plainForm(pem, json);
    if (/[+/]/.test(text)) return text.replace(/\+/g, '-').replace(/\//g, '_');
  }
}
/** A well-made hybrid form just over the size limit. */
function oversized(pem: string): string {
  const text = hybridForm(pem, Buffer.from(JSON.stringify({ ...GOOD_CARD, billing_address: 'A'.repeat(4200) })));
  expect(text.length).toBeGreaterThan(8192);
  expect(text.length).toBeLessThan(9000);
  return text;
}
function flip(b: Buffer, at: number): Buffer {
  const copy = Buffer.from(b);
  copy[at] ^= 0x01;
  return copy;
}

const BASE_BYTES = Buffer.byteLength(JSON.stringify({ ...SHORT_CARD, full_name: '' }));

/** A card JSON of exactly `bytes` UTF-8 bytes (the name is padded). */
function cardJsonOfSize(bytes: number): Buffer {
  const name = 'J'.repeat(bytes - BASE_BYTES);
  const json = Buffer.from(JSON.stringify({ ...SHORT_CARD, full_name: name }));
  expect(json.length).toBe(bytes);
  return json;
}

let database: Database;
let cards: CardService;
let pem: string;
beforeAll(async () => {
  database = await freshDatabase();
  cards = (await cardProcess(database)).services.cards;
  pem = await cards.publicKeyPem();
});
afterAll(async () => {
  await database?.close();
});

describe('both forms', () => {
  it('decrypts the plain form of an independent implementation', async () => {
    const json = Buffer.from(JSON.stringify(SHORT_CARD));
    expect(json.length).toBeLessThanOrEqual(214);
    expect(await cards.decryptCard(plainForm(pem, json))).toEqual({ card: SHORT_CARD });
  });

  it('decrypts the hybrid form of an independent implementation', async () => {
    const card = { ...GOOD_CARD, billing_address: 'Plot 14, Kampala Road, Nakasero Hill, next to the Post Office' };
    expect(await cards.decryptCard(hybridForm(pem, Buffer.from(JSON.stringify(card))))).toEqual({ card });
  });

  it('decrypts what scripts/encrypt-card.ts makes, in both forms', async () => {
    const short = encryptCard(pem, SHORT_CARD);
    const hybrid = encryptCard(pem, GOOD_CARD);
    expect(Buffer.from(short, 'base64')).toHaveLength(256);
    expect(Buffer.from(hybrid, 'base64').toString()).toMatch(/^[A-Za-z0-9+/=]+::[A-Za-z0-9+/=]{24}::[A-Za-z0-9+/=]{344}$/);
    expect(await cards.decryptCard(short)).toEqual({ card: SHORT_CARD });
    expect(await cards.decryptCard(hybrid)).toEqual({ card: GOOD_CARD });
  });

  it('takes 214 bytes in the plain form and 215 in the hybrid form', async () => {
    const at214 = encryptCard(pem, cardJsonOfSize(214).toString());
    const at215 = encryptCard(pem, cardJsonOfSize(215).toString());
    expect(Buffer.from(at214, 'base64')).toHaveLength(256);
    expect(Buffer.from(at215, 'base64').toString()).toContain('::');
    expect((await cards.decrypt(at214)).full_name).toHaveLength(214 - BASE_BYTES);
    expect((await cards.decrypt(at215)).full_name).toHaveLength(215 - BASE_BYTES);
    expect((await cards.decrypt(plainForm(pem, cardJsonOfSize(214)))).full_name).toHaveLength(214 - BASE_BYTES);
    expect((await cards.decrypt(hybridForm(pem, cardJsonOfSize(215)))).full_name).toHaveLength(215 - BASE_BYTES);
  });

  it('decrypts the hybrid form of a small card too, and tolerates wrapped base64 lines', async () => {
    const json = Buffer.from(JSON.stringify(SHORT_CARD));
    expect((await cards.decryptCard(hybridForm(pem, json))).card).toEqual(SHORT_CARD);
    const wrapped = plainForm(pem, json).replace(/(.{76})/g, '$1\n');
    expect((await cards.decryptCard(wrapped)).card).toEqual(SHORT_CARD);
  });
});

describe('one uniform error', () => {
  const json = Buffer.from(JSON.stringify(SHORT_CARD));
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

  const cases: [string, () => string][] = [
    ['empty', () => ''],
    ['not base64', () => '!!!not base64!!!'],
    ['base64 with a bad character', () => plainForm(pem, json).replace(/^./, '*')],
    ['base64url instead of base64', () => asBase64url(pem, json)],
    ['over 8192 characters, otherwise good', () => oversized(pem)],
    ['truncated plain form', () => plainForm(pem, json).slice(0, 200)],
    ['truncated hybrid form', () => hybridForm(pem, json).slice(0, 600)],
    ['plain form, a byte flipped', () => b64(flip(Buffer.from(plainForm(pem, json), 'base64'), 100))],
    ['plain form of another key pair', () => plainForm(other, json)],
    // SHA-256 OAEP carries at most 190 bytes: a JSON object that would otherwise get VALIDATION_ERROR
    ['plain form with OAEP SHA-256', () => b64(oaep(pem, Buffer.from(JSON.stringify({ card_number: SHORT_CARD.card_number })), 'sha256'))],
    ['plain form of non-JSON', () => plainForm(pem, Buffer.from('full_name=Jane'))],
    ['plain form of a JSON array', () => plainForm(pem, Buffer.from('["Jane Doe"]'))],
    ['plain form of JSON null', () => plainForm(pem, Buffer.from('null'))],
    ['plain form of a JSON string', () => plainForm(pem, Buffer.from('"Jane Doe"'))],
    ['plain form of bytes that are not UTF-8', () => plainForm(pem, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))],
    ['plain form of nothing', () => plainForm(pem, Buffer.alloc(0))],
    ['hybrid, ciphertext byte flipped', () => withParts((p) => [flip(p.ciphertext, 3), p.iv, p.wrappedKey])],
    ['hybrid, last ciphertext byte flipped (padding)', () => withParts((p) => [flip(p.ciphertext, p.ciphertext.length - 1), p.iv, p.wrappedKey])],
    ['hybrid, IV byte flipped', () => withParts((p) => [p.ciphertext, flip(p.iv, 0), p.wrappedKey])],
    ['hybrid, wrapped key byte flipped', () => withParts((p) => [p.ciphertext, p.iv, flip(p.wrappedKey, 17)])],
    ['hybrid, a part dropped', () => withParts((p) => [p.ciphertext, p.wrappedKey])],
    ['hybrid, a part added', () => withParts((p) => [p.ciphertext, p.iv, p.wrappedKey, p.iv])],
    ['hybrid, parts swapped', () => withParts((p) => [p.iv, p.ciphertext, p.wrappedKey])],
    ['hybrid, ciphertext cut short of a block', () => withParts((p) => [p.ciphertext.subarray(0, p.ciphertext.length - 3), p.iv, p.wrappedKey])],
    ['hybrid, empty ciphertext', () => withParts((p) => [Buffer.alloc(0), p.iv, p.wrappedKey])],
    ['hybrid, AES key of 16 bytes', () => withParts((p) => [p.ciphertext, p.iv, p.wrappedKey], { keyBytes: 16 })],
    ['hybrid, IV of 8 bytes', () => withParts((p) => [p.ciphertext, p.iv, p.wrappedKey], { ivBytes: 8 })],
    ['hybrid, wrapped by another key pair', () => joinParts(Object.values(hybridParts(other, json)))],
    ['hybrid, key wrapped with OAEP SHA-256', () => withParts((p) => [p.ciphertext, p.iv, p.wrappedKey], { hash: 'sha256' })],
    ['hybrid, a part that is not base64', () => b64(Buffer.from('%%%%::AAAAAAAAAAAAAAAAAAAAAA==::' + b64(oaep(pem, randomBytes(32)))))],
    ['hybrid, parts not base64-encoded again', () => Buffer.from(hybridForm(pem, json), 'base64').toString()],
    ['hybrid of a JSON array', () => hybridForm(pem, Buffer.from('[' + JSON.stringify(GOOD_CARD) + ']'))],
  ];

  function withParts(pick: (p: HybridParts) => Buffer[], o: { keyBytes?: number; ivBytes?: number; hash?: string } = {}): string {
    if (o.hash) {
      const key = randomBytes(32);
      const iv = randomBytes(16);
      const c = createCipheriv('aes-256-cbc', key, iv);
      return joinParts(pick({ ciphertext: Buffer.concat([c.update(json), c.final()]), iv, wrappedKey: oaep(pem, key, o.hash) }));
    }
    return joinParts(pick(hybridParts(pem, json, o)));
  }

  let reference: AppError;
  beforeAll(async () => {
    reference = await thrown(() => cards.decrypt('!'));
  });

  it('is CARD_DECRYPTION_FAILED with a fixed message and no data', () => {
    expect(reference).toBeInstanceOf(AppError);
    expect({ code: reference.code, http: reference.http, message: reference.message, data: reference.data }).toEqual({
      code: 'CARD_DECRYPTION_FAILED',
      http: 400,
      message: 'encrypted_card could not be decrypted',
      data: null,
    });
  });

  it.each(cases)('%s', async (_name, make) => {
    const input = make();
    const e = await thrown(() => cards.decryptCard(input));
    expect(e).toBeInstanceOf(AppError);
    expect({ ...e, message: e.message, http: e.http }).toEqual({ ...reference, message: reference.message, http: reference.http });
  });

  it('keeps decrypting good input after a run of bad ones', async () => {
    expect((await cards.decryptCard(hybridForm(pem, json))).card.card_number).toBe(GOOD_CARD.card_number);
  });
});

describe('validation after decryption', () => {
  it('answers VALIDATION_ERROR naming the fields, without the card number or the CVV', async () => {
    const card = { ...GOOD_CARD, card_number: '4000000000003007', cvv: '98', expiry_month: '13', billing_country: 'Uganda' };
    const e = await thrown(() => cards.decryptCard(encryptCard(pem, card)));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.data.map((f: { field: string }) => f.field)).toEqual([
      'encrypted_card.card_number',
      'encrypted_card.expiry_month',
      'encrypted_card.cvv',
      'encrypted_card.billing_country',
    ]);
    const serialised = JSON.stringify({ code: e.code, message: e.message, data: e.data });
    for (const value of ['4000000000003007', '3007', '"98"', 'Uganda']) expect(serialised).not.toContain(value);
  });

  it('lists missing fields of a JSON object that is not a card', async () => {
    const e = await thrown(() => cards.decryptCard(encryptCard(pem, JSON.stringify({ card: GOOD_CARD.card_number }))));
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.data).toHaveLength(10);
    expect(JSON.stringify(e.data)).not.toContain(GOOD_CARD.card_number);
  });
});
