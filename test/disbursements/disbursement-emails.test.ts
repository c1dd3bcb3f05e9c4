// Proves the owners' disbursement emails, as a real SMTP server receives them: one waiting for approval asks every active owner of the business (not a developer, a disabled owner or another business's owner) with the amount, the recipient (its number masked but for the last four characters), the reference, the deadline and the link to its dashboard page; one ending FAILED or REVERSED tells the owners its money is back in the wallet; the emails are written with the state change (none for other states, none for a repeated move); the requester of one waiting is left out (checked on the builder: today every disbursement is asked for by an API token, so every owner is asked).
import { disbursementEmails } from '../../src/disbursements/emails';
import type { DisbursementRow } from '../../src/api-records/disbursement';
import { disbursingMerchant, eventually, ref } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { startSmtp } from '../helpers/smtp';
import type { Mail, TestSmtp } from '../helpers/smtp';
import { createUser } from '../helpers/users';
import type { TestUser } from '../helpers/users';

let svc: TestService;
let smtp: TestSmtp;
let shop: MerchantSetup;
let owners: TestUser[];
let bystanders: string[];

const db = () => svc.database.db;
const secret = (m: MerchantSetup) => ({ headers: { 'secret-key': m.apiSecret } });

const funded = (name: string) => disbursingMerchant(svc, 200000, { name });

async function disburse(m: MerchantSetup, body: Record<string, unknown>) {
  const res = await m.client.post('/v1/disbursements', {
    currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Okello Transport Ltd', merchant_reference: ref('PAY'), ...body,
  }, secret(m));
  expect(res.status).toBe(200);
  return res.body.data as { id: string; gateway_reference: string; merchant_reference: string; transaction_status: string };
}

async function statusOf(m: MerchantSetup, reference: string, want: string) {
  await eventually(async () => {
    const r = await m.client.get(`/v1/disbursements/${reference}`, secret(m));
    return r.body.data.transaction_status === want ? true : undefined;
  }, 15_000, `disbursement ${reference} ${want}`);
}

/** The mails of `kind` that name `reference`, once `count` have arrived, their long header lines unfolded. */
const mailsOf = (kind: string, reference: string, count: number) =>
  eventually<Mail[]>(async () => {
    const found = smtp.mails.filter((x) => new RegExp(`X-PayCollect-Kind: ${kind}`, 'i').test(x.text) && x.text.includes(reference));
    return found.length >= count ? found.map((x) => ({ ...x, text: x.text.replace(/\r?\n(?= )/g, '') })) : undefined;
  }, 15_000, `${count} ${kind} mails of ${reference}`);
const recipients = (mails: Mail[]) => mails.flatMap((x) => x.to).sort();
const outboxOf = async (reference: string) =>
  (await db().one("SELECT count(*)::int AS n FROM emails WHERE kind LIKE 'disbursement_%' AND text_body LIKE '%' || $1 || '%'", [reference])).n;

beforeAll(async () => {
  smtp = await startSmtp();
  svc = await startTestService({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, SANDBOX_MM_DELAY_MS: '3600000', PROCESSOR_CHECK_SCHEDULE: '100ms,200ms', PUBLIC_BASE_URL: 'https://pay.example.com' } });
  shop = await funded('Kampala Books');
  await db().none('UPDATE wallets SET disbursement_approval_threshold_minor = 5000000 WHERE business_id = $1', [shop.businessId]);
  await db().none('UPDATE businesses SET disbursement_fee_fixed_minor = 150050 WHERE id = $1', [shop.businessId]);
  owners = [await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId }), await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId })];
  const disabled = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
  await db().none('UPDATE users SET disabled_at = now() WHERE id = $1', [disabled.id]);
  const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
  const elsewhere = await funded('Nairobi Tools');
  const theirOwner = await createUser(svc, { role: 'merchant_owner', business_id: elsewhere.businessId });
  bystanders = [disabled.email, developer.email, theirOwner.email];
}, 180_000); // a service start is over a minute on a loaded machine
afterAll(async () => {
  await svc?.close();
  await smtp?.close();
});

it('asks every active owner to decide on one waiting for approval, with what, to whom, the reference, the deadline and the link', async () => {
  const d = await disburse(shop, { amount: 75000.5, account_name: 'Nakato Grace' });
  expect(d.transaction_status).toBe('PENDING_APPROVAL');
  const mails = await mailsOf('disbursement_approval', d.merchant_reference, 2);
  expect(recipients(mails)).toEqual(owners.map((o) => o.email).sort());
  const { approval_expires_at: deadline } = await db().one('SELECT approval_expires_at FROM disbursements WHERE gateway_reference = $1', [d.gateway_reference]);
  for (const mail of mails) {
    expect(mail.text).toContain(`Subject: Approve disbursement ${d.merchant_reference}: 75,000.50 UGX to Nakato Grace`);
    expect(mail.text).toContain('A disbursement of 75,000.50 UGX from Kampala Books to Nakato Grace waits for an owner\'s approval.');
    // the name is the disbursing business's own, not another's
    expect(mail.text).not.toContain('Nairobi Tools');
    expect(mail.text).toContain('Amount:             75,000.50 UGX (fee 1,500.50 UGX)');
    // the recipient's number masked but for its last four, in the subject and the text alike
    expect(mail.text).toContain('Recipient:          Nakato Grace (******3456)');
    expect(mail.text).not.toContain('256772123456');
    expect(mail.text).toContain(`Merchant reference: ${d.merchant_reference}`);
    expect(mail.text).toContain(`Gateway reference:  ${d.gateway_reference}`);
    expect(mail.text).toContain(`Decide before:      ${deadline.toISOString().slice(0, 19).replace('T', ' ')} UTC`);
    expect(mail.text).toContain(`Approve or reject it here: https://pay.example.com/dashboard/disbursements/${d.gateway_reference}`);
  }
  for (const who of bystanders) expect(smtp.mails.flatMap((x) => x.to)).not.toContain(who);
  expect(await outboxOf(d.gateway_reference)).toBe(2);
});

it('tells the owners when one fails that its money is back in the wallet, and writes nothing for the states before', async () => {
  const d = await disburse(shop, { amount: 20000, account_number: '256772123502' });
  await statusOf(shop, d.gateway_reference, 'FAILED');
  const mails = await mailsOf('disbursement_returned', d.merchant_reference, 2);
  expect(recipients(mails)).toEqual(owners.map((o) => o.email).sort());
  expect(mails[0].text).toContain(`Subject: Disbursement ${d.merchant_reference} FAILED: 20,000 UGX back in your wallet`);
  expect(mails[0].text).toContain('A disbursement of 20,000 UGX from Kampala Books to Okello Transport Ltd failed.');
  expect(mails[0].text).toContain("The amount and its fee, 21,500.50 UGX, are back in the UGX wallet's available balance.");
  expect(mails[0].text).toContain('Status:             FAILED (The simulated processor could not pay this account)');
  expect(mails[0].text).toContain('Recipient:          Okello Transport Ltd (******3502)');
  expect(mails[0].text).not.toContain('256772123502');
  expect(mails[0].text).toContain(`Details: https://pay.example.com/dashboard/disbursements/${d.gateway_reference}`);
  // PENDING and PROCESSING wrote none: only the two of FAILED are in the outbox
  expect(await outboxOf(d.gateway_reference)).toBe(2);
});

it('tells the owners when a paid one is reversed, once, and nothing when it completed', async () => {
  const d = await disburse(shop, { amount: 10000 });
  await statusOf(shop, d.gateway_reference, 'COMPLETED');
  expect(await outboxOf(d.gateway_reference)).toBe(0);
  const moved = await svc.services.disbursements.move(BigInt(d.id), { to: 'REVERSED', failureReason: 'The processor reversed the payment' });
  expect(moved?.status).toBe('REVERSED');
  // a repeated report moves nothing, so it writes no email either
  expect(await svc.services.disbursements.move(BigInt(d.id), { to: 'REVERSED' })).toBeNull();
  const mails = await mailsOf('disbursement_returned', d.merchant_reference, 2);
  expect(recipients(mails)).toEqual(owners.map((o) => o.email).sort());
  expect(mails[0].text).toContain(`Subject: Disbursement ${d.merchant_reference} REVERSED: 10,000 UGX back in your wallet`);
  expect(mails[0].text).toContain('was reversed by the processor after it was paid.');
  expect(mails[0].text).toContain('Status:             REVERSED (The processor reversed the payment)');
  expect(mails[0].text).toMatch(/Time: {15}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  expect(mails[0].text).toContain('Recipient:          Okello Transport Ltd (******3456)');
  expect(mails[0].text).not.toContain('256772123456');
  expect(await outboxOf(d.gateway_reference)).toBe(2);
});

it('sends nothing when an owner rejects one (CANCELLED), beyond the approval request', async () => {
  const d = await disburse(shop, { amount: 60000 });
  await mailsOf('disbursement_approval', d.merchant_reference, 2);
  expect(await svc.services.disbursements.decide(d.gateway_reference, { businessId: shop.businessId, userId: owners[0].id, approve: false, ownerSince: null, confirmCode: async () => undefined })).toMatchObject({ status: 'CANCELLED' });
  expect(await outboxOf(d.gateway_reference)).toBe(2);
});

it('keeps no whole recipient number in the outbox: not in a subject, not in a text', async () => {
  const written = await db().one(
    `SELECT count(*)::int AS emails, count(*) FILTER (WHERE e.subject || e.text_body LIKE '%' || d.account_number || '%')::int AS whole
     FROM emails e JOIN disbursements d ON e.text_body LIKE '%' || d.gateway_reference || '%'
     WHERE e.kind LIKE 'disbursement_%'`,
  );
  expect(written.emails).toBeGreaterThanOrEqual(8);
  expect(written.whole).toBe(0);
});

describe('disbursementEmails', () => {
  const row = (o: Partial<DisbursementRow>) => ({
    gateway_reference: 'DB1', merchant_reference: 'PAY-1', amount_minor: 100n, fee_minor: 0n, currency: 'UGX', payment_method: 'BANK', bank_code: '010',
    account_number: '0123456789', account_name: 'Okello', failure_reason: null, message: 'm', updated_at: new Date(0), approval_expires_at: new Date(0), requested_by_user_id: null, ...o,
  }) as DisbursementRow;

  it('leaves the requester of one waiting out, and no one when an API token asked', () => {
    expect(disbursementEmails(row({ status: 'PENDING_APPROVAL', requested_by_user_id: 7 }), 'B', 'u').map((e) => e.exceptUserId)).toEqual([7]);
    expect(disbursementEmails(row({ status: 'PENDING_APPROVAL' }), 'B', 'u')[0].text).toContain('Recipient:          Okello (bank 010 account ******6789)');
    expect(disbursementEmails(row({ status: 'FAILED', requested_by_user_id: 7 }), 'B', 'u').map((e) => e.exceptUserId)).toEqual([null]);
  });

  it.each(['PENDING', 'PROCESSING', 'COMPLETED', 'CANCELLED'] as const)('writes none for %s', (status) => {
    expect(disbursementEmails(row({ status }), 'B', 'u')).toEqual([]);
  });
});
