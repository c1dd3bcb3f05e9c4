// Proves the card-data discipline: after hosted and direct card payments (both designated cards, another card, validation failures), no full card number passing Luhn and no CVV appears in any database row, the service log, a webhook sent or an email (rows and .eml files).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { encryptCard } from '../../scripts/encrypt-card';
import { luhn, maskPan } from '../../src/domain/card';
import type { CardDetails } from '../../src/domain/card';
import { eventually, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { FAILURE_PAN, OTHER_PAN, SUCCESS_PAN, Visit, card, createCard } from '../http/pages/card-helpers';

const AMEX_PAN = '378282246310005';
const DISCOVER_PAN = '6011111111111117';
const EXPIRED = { expiry_month: '01', expiry_year: '2021' };
/** Distinctive CVVs, one per card used. */
const CVVS = ['737', '9371', '8642', '7391', '4826', '5719'];
const PANS = [SUCCESS_PAN, FAILURE_PAN, OTHER_PAN, AMEX_PAN, DISCOVER_PAN];

let svc: TestService;
let m: MerchantSetup;
let receiver: Receiver;
let pem: string;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService();
  m = await setupMerchant(svc, { emailMerchant: true, emailUser: true, webhookUrl: receiver.url });
  pem = (await m.client.get('/v1/public-key')).body.data.public_key;
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

/** Every 13-19 digit number standing alone (or grouped by single spaces or dashes) that passes Luhn. */
function luhnNumbers(text: string): string[] {
  const found = text.match(/(?<![A-Za-z0-9])\d(?:[ -]?\d){12,18}(?![A-Za-z0-9])/g) ?? [];
  return found.map((s) => s.replace(/[ -]/g, '')).filter((digits) => digits.length >= 13 && digits.length <= 19 && luhn(digits));
}

/** A CVV next to card context: a "cvv" key or label followed closely by one of the CVVs used, or one quoted alone. */
function cvvLeaks(text: string): string[] {
  const leaks: string[] = [];
  if (/"cvv"|cvv=|'cvv'/i.test(text)) leaks.push('a cvv key');
  for (const cvv of CVVS) {
    if (new RegExp(`cvv\\W{0,16}${cvv}(?!\\d)`, 'i').test(text)) leaks.push(`cvv ${cvv} after "cvv"`);
    if (text.includes(`"${cvv}"`)) leaks.push(`"${cvv}" quoted`);
  }
  return leaks;
}

function panLeaks(text: string): string[] {
  const grouped = (pan: string) => [pan.replace(/(\d{4})(?=\d)/g, '$1 '), pan.replace(/(\d{4})(?=\d)/g, '$1-')];
  return PANS.filter((pan) => [pan, ...grouped(pan)].some((form) => text.includes(form)));
}

async function hosted(details: CardDetails, outcome: 'authenticate' | 'cancel') {
  const v = new Visit(await createCard(m));
  await v.open();
  const entry = await v.post({ action: 'pay', ...details });
  expect(entry.status).toBe(200);
  expect((await v.post({ action: outcome })).status).toBe(303);
}

async function direct(details: CardDetails | string) {
  const v = new Visit(await createCard(m, encryptCard(pem, details)));
  await v.open();
  expect((await v.post({ action: 'authenticate' })).status).toBe(303);
}

/** Every row of every table of the service's schema, as JSON text. */
async function dumpDatabase(): Promise<{ table: string; rows: string[] }[]> {
  const db = svc.services.db;
  const tables = await db.map<string>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name",
    [],
    (r: { table_name: string }) => r.table_name,
  );
  const out = [];
  for (const table of tables) {
    const rows = await db.map<string>('SELECT row_to_json(t)::text AS j FROM $1:name t', [table], (r: { j: string }) => r.j);
    out.push({ table, rows });
  }
  return out;
}

/** An .eml file as readable text: quoted-printable soft breaks and escapes undone. */
function readable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

it('finds what it looks for (the detectors themselves)', () => {
  expect(luhnNumbers('{"n":"4000000000003006"} x 4000 0000 0000 3014 y 5555-5555-5555-4444')).toEqual([SUCCESS_PAN, FAILURE_PAN, OTHER_PAN]);
  expect(luhnNumbers('id 4000000000003007, hex ab4000000000003006cd, 2025-11-25 10:00, 256777000001')).toEqual([]);
  expect(cvvLeaks('{"cvv":"737"}').length).toBeGreaterThan(0);
  expect(cvvLeaks('CVV: 9371').length).toBeGreaterThan(0);
  expect(cvvLeaks('amount 9371.00 UGX')).toEqual([]);
});

it('leaves no card number and no CVV in the database, the log, webhooks or emails', async () => {
  await hosted(card({ card_number: SUCCESS_PAN, cvv: CVVS[0] }), 'authenticate');
  await hosted(card({ card_number: FAILURE_PAN, cvv: CVVS[1] }), 'authenticate');
  await hosted(card({ card_number: OTHER_PAN, cvv: CVVS[2] }), 'cancel');

  // Validation failures on the entry page: an expired card and a broken CVV are refused, and then cancelled.
  const refused = new Visit(await createCard(m));
  await refused.open();
  expect((await refused.post({ action: 'pay', ...card({ card_number: DISCOVER_PAN, cvv: CVVS[4], ...EXPIRED }) })).status).toBe(422);
  expect((await refused.post({ action: 'pay', ...card({ card_number: AMEX_PAN, cvv: `${CVVS[3]}0` }) })).status).toBe(422);
  expect((await refused.post({ action: 'cancel' })).status).toBe(303);

  // Direct payments: the plain RSA form (a short card) and the hybrid form.
  const short = { ...card({ card_number: AMEX_PAN, cvv: CVVS[3] }), full_name: 'Jo', billing_address: '1 Rd', billing_city: 'Gulu', billing_zip: '', billing_state: '' };
  expect(Buffer.byteLength(JSON.stringify(short))).toBeLessThanOrEqual(214);
  await direct(short);
  await direct(card({ card_number: SUCCESS_PAN, cvv: CVVS[5], full_name: 'Amina Nakato '.repeat(5).trim() }));

  // A direct payment whose card fails validation after decryption.
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 25000, payment_method: 'CARD', redirect_url: 'https://shop.example.org/return', account_name: 'Amina Nakato',
    account_email: 'amina.nakato@example.org', merchant_reference: `NOCARD-${Date.now()}`, narration: 'Expired card order',
    encrypted_card: encryptCard(pem, card({ card_number: DISCOVER_PAN, cvv: CVVS[4], ...EXPIRED })),
  });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_ERROR');
  expect(panLeaks(res.text)).toEqual([]);
  expect(cvvLeaks(res.text)).toEqual([]);

  // Every final payment has its webhook delivered and every email written out.
  const db = svc.services.db;
  await eventually(async () => {
    const n = await db.one<{ pending: number; total: number }>(
      'SELECT count(*) FILTER (WHERE delivered_at IS NULL)::int AS pending, count(*)::int AS total FROM notifications',
    );
    return n.total === 6 && n.pending === 0 ? true : undefined;
  }, 20_000, 'every webhook delivered');
  const mailDir = path.join(svc.config.dataDir, 'mail');
  const emlFiles = () => (existsSync(mailDir) ? readdirSync(mailDir).filter((f) => f.endsWith('.eml')) : []);
  await eventually(async () => {
    const e = await db.one<{ unsent: number; total: number }>('SELECT count(*) FILTER (WHERE sent_at IS NULL)::int AS unsent, count(*)::int AS total FROM emails');
    return e.unsent === 0 && e.total > 0 && emlFiles().length === e.total ? true : undefined;
  }, 20_000, 'every email written');

  const dump = await dumpDatabase();
  const sources: { name: string; text: string }[] = [
    ...dump.map((d) => ({ name: `table ${d.table}`, text: d.rows.join('\n') })),
    { name: 'service log', text: svc.logs.join('\n') },
    ...(await db.map('SELECT id, body FROM notifications', [], (r: { id: bigint; body: string }) => ({ name: `notification ${r.id}`, text: r.body }))),
    ...(await db.map('SELECT id, subject, text_body FROM emails', [], (r: { id: bigint; subject: string; text_body: string }) => ({ name: `email ${r.id}`, text: `${r.subject}\n${r.text_body}` }))),
    ...emlFiles().map((f) => ({ name: `mail/${f}`, text: readable(readFileSync(path.join(mailDir, f), 'utf8')) })),
    ...receiver.received.map((r, i) => ({ name: `webhook ${i}`, text: JSON.stringify(r.headers) + '\n' + r.body })),
  ];

  // The scan looked at real data: the payments, their masked cards and fingerprints are there.
  const all = sources.map((s) => s.text).join('\n');
  expect(dump.map((d) => d.table)).toEqual(expect.arrayContaining(['collections', 'card_fingerprints', 'notifications', 'emails', 'journals']));
  expect(all).toContain(maskPan(SUCCESS_PAN));
  expect(all).toContain(maskPan(AMEX_PAN));
  expect(dump.find((d) => d.table === 'card_fingerprints')!.rows.length).toBeGreaterThanOrEqual(4);
  expect(emlFiles().length).toBeGreaterThanOrEqual(10);
  expect(receiver.received.length).toBeGreaterThanOrEqual(6);
  expect(svc.logs.length).toBeGreaterThan(20);

  const findings = sources.flatMap((s) => [
    ...luhnNumbers(s.text).map((n) => `${s.name}: a Luhn-valid ${n.length}-digit number`),
    ...panLeaks(s.text).map((p) => `${s.name}: card ${maskPan(p)}`),
    ...cvvLeaks(s.text).map((c) => `${s.name}: ${c}`),
  ]);
  expect(findings).toEqual([]);
});
