// Proves that every change an operator operation makes shows in its audit entry: for each changing operation of admin.yaml (read from the spec, so a new one must be added here), the entry's before and after differ where the record changed, a creation has only an after and a deletion only a before; a business's fees are in its entry.
import type { OpenAPIBackend } from 'openapi-backend';
import { createBusiness, tokenBody } from '../helpers/merchants';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, notificationsOf } from '../helpers/notify-fixtures';
import { mobileMoney, ref, setupMerchant } from '../helpers/fixtures';
import { specApis } from '../helpers/spec';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, signedIn, totpCode } from '../helpers/users';
import type { SessionClient } from '../helpers/users';
import { currentCode } from '../../src/people/totp';

const clock = new Clock();
let svc: TestService;
let admin: OpenAPIBackend;
let business: number;
let op: SessionClient;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  admin = (await specApis()).admin;
  business = (await createBusiness(svc, { name: 'Audit Changes', fees: [{ payment_method: 'CARD', percent: 2.9, fixed: 100 }] })).id;
  op = await signedIn(svc, await createUser(svc, { role: 'operator_admin', totp: true }), clock);
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

type Entry = { action: string; target_id: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null };

/** The newest entry of `action`. */
async function lastEntry(action: string): Promise<Entry> {
  const row = await svc.services.db.oneOrNone('SELECT action, target_id, before, after FROM audit_log WHERE action = $1 ORDER BY id DESC LIMIT 1', [action]);
  if (!row) throw new Error(`no audit entry for ${action}`);
  return row;
}

const ok = (res: { status: number; text: string }, what: string) => {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text} ${svc.logs.filter((l) => l.includes('"error"')).slice(-2).join('\n')}`);
  return res as { status: number; text: string; body: any };
};

interface Case {
  /** makes the change */
  run: () => Promise<unknown>;
  /** fields whose values before and after must differ; 'created' / 'deleted' for a record made or removed */
  changed: string[] | 'created' | 'deleted';
}

/** a token of a business of its own: a business holds at most 2 */
const freshToken = async () => ok(await svc.admin.post(`/v1/admin/businesses/${(await createBusiness(svc)).id}/api-tokens`, tokenBody()), 'createApiToken').body.data.id as number;
const sandboxMid = async () =>
  ok(await svc.admin.post(`/v1/admin/businesses/${business}/mids`, { business_name: 'Audit Changes', service_type: 'sandbox', payment_method: 'MOBILE_MONEY', currency: 'UGX' }), 'createMid').body.data.id as number;

const CASES: Record<string, Case> = {
  createBusiness: { run: () => svc.admin.post('/v1/admin/businesses', { name: 'Audit Created', default_currency: 'UGX', fees: [{ payment_method: 'BANK', percent: 1, fixed: 0 }] }), changed: 'created' },
  updateBusiness: {
    run: () => svc.admin.patch(`/v1/admin/businesses/${business}`, { card_settlement_days: 3, fees: [{ payment_method: 'CARD', percent: 3.4, fixed: 100 }] }),
    changed: ['card_settlement_days', 'fees'],
  },
  verifyBusiness: { run: () => svc.admin.post(`/v1/admin/businesses/${business}/verify`, { note: 'documents seen' }), changed: ['verified_at', 'verified_by', 'verification_note'] },
  createWallet: { run: () => svc.admin.post(`/v1/admin/businesses/${business}/wallets`, { currency: 'KES' }), changed: 'created' },
  updateWallet: {
    run: async () => {
      const currency = (await svc.admin.get(`/v1/admin/businesses/${business}`)).body.data.default_currency;
      return svc.admin.patch(`/v1/admin/businesses/${business}/wallets/${currency}`, { disbursement_limit: 500, disbursement_approval_threshold: 100 });
    },
    changed: ['disbursement_limit_minor', 'disbursement_approval_threshold_minor'],
  },
  createMid: { run: sandboxMid, changed: 'created' },
  updateMid: { run: async () => svc.admin.patch(`/v1/admin/mids/${await sandboxMid()}`, { processing_rank: 7, active: false }), changed: ['processing_rank', 'active'] },
  // a check writes nothing but its entry: before and after are the same record
  checkMidCredentials: { run: async () => svc.admin.post(`/v1/admin/mids/${await sandboxMid()}/check-credentials`), changed: [] },
  createApiToken: { run: freshToken, changed: 'created' },
  // an owner of the token's business makes it in the dashboard; the entry is the link, named by its id
  createAdminPaymentLink: {
    run: async () => {
      const tokenId = await freshToken();
      const { business_id: businessId } = await svc.services.db.one('SELECT business_id FROM api_tokens WHERE id = $1', [tokenId]);
      const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: businessId }));
      return owner.post('/v1/admin/payment-links', { title: 'Audited dashboard link', amount: 100, currency: 'UGX', payment_methods: ['CARD'], api_token_id: tokenId });
    },
    changed: 'created',
  },
  deactivateAdminPaymentLink: {
    run: async () => {
      const tokenId = await freshToken();
      const { business_id: businessId } = await svc.services.db.one('SELECT business_id FROM api_tokens WHERE id = $1', [tokenId]);
      const link = await svc.services.paymentLinks.create({ businessId, apiTokenId: tokenId }, { title: 'Audited link', amount: 100, currency: 'UGX', payment_methods: ['CARD'] });
      return svc.admin.post(`/v1/admin/payment-links/${link.link_id}/deactivate`, { message: 'Reported as fraud' });
    },
    changed: ['state', 'deactivation_message', 'deactivated_at'],
  },
  reactivateAdminPaymentLink: {
    run: async () => {
      const tokenId = await freshToken();
      const { business_id: businessId } = await svc.services.db.one('SELECT business_id FROM api_tokens WHERE id = $1', [tokenId]);
      const link = await svc.services.paymentLinks.create({ businessId, apiTokenId: tokenId }, { title: 'Audited link', amount: 100, currency: 'UGX', payment_methods: ['CARD'] });
      await svc.services.paymentLinks.deactivate(businessId, link.link_id, 'Paused');
      return svc.admin.post(`/v1/admin/payment-links/${link.link_id}/reactivate`);
    },
    changed: ['state', 'deactivation_message', 'deactivated_at'],
  },
  updateApiToken: { run: async () => svc.admin.patch(`/v1/admin/api-tokens/${await freshToken()}`, { email_user: true, webhook_url: 'https://8.8.8.8/changed' }), changed: ['email_user', 'webhook_url'] },
  regenerateApiToken: { run: async () => svc.admin.post(`/v1/admin/api-tokens/${await freshToken()}/regenerate`), changed: ['generation'] },
  deleteApiToken: { run: async () => svc.admin.delete(`/v1/admin/api-tokens/${await freshToken()}`), changed: 'deleted' },
  setFxRate: { run: () => svc.admin.put('/v1/admin/fx-rates', { base: 'USD', quote: 'UGX', rate: 3700.5 }), changed: 'created' },
  rotateCardKey: { run: () => svc.admin.post('/v1/admin/card-keys/rotate'), changed: 'created' },
  resendAdminNotification: {
    run: async () => {
      const m = await createNotifyMerchant(svc.services, { webhookUrl: 'http://127.0.0.1:9/hook' });
      const row = await finishCollection(svc.services, (await createPendingCollection(svc.services, m)).id);
      // a re-send while the worker's first attempt is in flight can deadlock on PostgreSQL (noted apart): wait for it
      await eventually(async () => (await notificationsOf(svc.services, row.id)).every((n) => n.attempts > 0) || undefined, 15_000, 'the first delivery attempt');
      return svc.admin.post(`/v1/admin/collections/${row.gateway_reference}/notify`);
    },
    changed: 'created',
  },
  createAdminRefund: {
    run: async () => {
      const m = await setupMerchant(svc);
      const created = ok(await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' })), 'requestToPay');
      const reference = created.body.data.gateway_reference as string;
      ok(await m.client.post(`/v1/sandbox/collections/${reference}/simulate`, { outcome: 'COMPLETED' }), 'simulateCollection');
      return svc.admin.post(`/v1/admin/collections/${reference}/refunds`, { amount: 1000, merchant_reference: ref('AUDIT-RFD'), reason: 'audited' });
    },
    changed: 'created',
  },
  createAdminDisbursement: {
    run: async () => {
      const m = await setupMerchant(svc);
      await svc.services.db.none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [m.businessId]);
      const created = ok(await m.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' })), 'requestToPay');
      ok(await m.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' }), 'simulateCollection');
      const owner = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: m.businessId, totp: true }), clock);
      clock.advance(30_000);
      const body = { amount: 1000, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456', account_name: 'Audited Payee', merchant_reference: ref('AUDIT-DSB') };
      return owner.post('/v1/admin/disbursements', { ...body, code: totpCode(svc) });
    },
    changed: 'created',
  },
  // a business not yet verified (verifyBusiness verifies the shared one)
  requestGoLive: { run: async () => svc.admin.post(`/v1/admin/businesses/${(await createBusiness(svc)).id}/go-live-request`, {}), changed: 'created' },
  updateUser: {
    run: async () => svc.admin.patch(`/v1/admin/users/${(await createUser(svc, { role: 'merchant_viewer', business_id: business })).id}`, { role: 'merchant_developer', name: 'Renamed Person' }),
    changed: ['role', 'name'],
  },
  createInvitation: { run: () => svc.admin.post('/v1/admin/invitations', { email: 'audit.changes@people.example', role: 'merchant_viewer', business_id: business }), changed: 'created' },
  revokeInvitation: {
    run: async () => {
      const inv = ok(await svc.admin.post('/v1/admin/invitations', { email: 'audit.revoked@people.example', role: 'merchant_viewer', business_id: business }), 'createInvitation');
      return svc.admin.delete(`/v1/admin/invitations/${inv.body.data.id}`);
    },
    changed: ['revoked_at'],
  },
  verifyTotp: {
    run: async () => {
      const person = await createUser(svc, { role: 'operator_support', totp: true });
      await svc.services.db.none("UPDATE users SET last_login_at = now() - interval '1 day' WHERE id = $1", [person.id]);
      await signedIn(svc, person, clock);
    },
    changed: ['last_login_at'],
  },
  confirmTotpEnrolment: {
    run: async () => {
      const person = await signedIn(svc, await createUser(svc, { role: 'merchant_owner', business_id: business }));
      const secret = ok(await person.post('/v1/admin/me/totp'), 'startTotpEnrolment').body.data.secret;
      clock.advance(30_000);
      return person.post('/v1/admin/me/totp/confirm', { code: currentCode(secret, clock.now()) });
    },
    changed: ['totp_enabled_at'],
  },
};

/**
 * Changes whose only effect is on what the log must never show (a session, a password, an unconfirmed
 * secret): their entry's action is the record. Operations open to anyone record themselves (sign-in,
 * resets, invitations accepted) or are processors' callbacks.
 */
const SECRETS_ONLY: Record<string, string> = {
  logout: 'ends a session',
  startTotpEnrolment: 'stores an unconfirmed secret',
  changeOwnPassword: 'replaces a password hash and ends other sessions',
  resolveHeldCollection: 'moves a held collection; its entry is checked by test/processor-requests/held-resolution.test.ts',
  resolveHeldRefund: 'moves a held refund; its entry is checked by test/refunds/mpesa-refunds.test.ts',
  approveDisbursement: 'moves a disbursement (its record is its own history); its entry is checked by test/disbursements/approve-disbursement.test.ts',
  rejectDisbursement: 'moves a disbursement (its record is its own history); its entry is checked by test/disbursements/approve-disbursement.test.ts',
  acceptFxRateJump: 'decides a held rate jump (its answer is the jump after the decision); its entry is checked by test/rates/jumps.test.ts',
  refuseFxRateJump: 'decides a held rate jump (its answer is the jump after the decision); its entry is checked by test/rates/jumps.test.ts',
  uploadReconciliationStatement: "takes a processor's statement in (its answer is the statement); its entry is checked by test/reconciliation/mpesa-statements.test.ts",
  resolveReconciliationItem: 'decides a reconciliation item (the entry shows the item before and after); its entry is checked by test/reconciliation/mpesa-statements.test.ts',
  approveReconciliationItem: 'approves a reconciliation item (the entry shows the item before and after); its entry is checked by test/reconciliation/mpesa-statements.test.ts',
  acceptAdminDispute: "accepts a dispute at the processor (its answer is the dispute after the acceptance); its entry is checked by test/disputes/paystack-disputes.test.ts",
  setReconciliationSettings: "sets a MID's reconciliation settings (its answer is the settings saved); its entry is checked by test/reconciliation/mpesa-statements.test.ts",
};

it('has a case for every changing operation of admin.yaml that needs a credential', () => {
  const changing = admin
    .getOperations()
    .filter((o) => o.method !== 'get' && !(Array.isArray(o.security) && o.security.length === 0))
    .map((o) => o.operationId as string);
  expect([...Object.keys(CASES), ...Object.keys(SECRETS_ONLY)].sort()).toEqual(changing.sort());
});

it.each(Object.keys(CASES))('%s: the entry shows what changed', async (action) => {
  const { run, changed } = CASES[action];
  const res = (await run()) as { status?: number; text?: string } | undefined;
  if (res && res.status !== undefined) ok(res as { status: number; text: string }, action);
  clock.advance(1_000);
  const entry = await lastEntry(action);
  if (changed === 'created') {
    expect([action, entry.before, entry.after === null]).toEqual([action, null, false]);
  } else if (changed === 'deleted') {
    expect([action, entry.before === null, entry.after]).toEqual([action, false, null]);
  } else {
    expect(entry.before).not.toBeNull();
    expect(entry.after).not.toBeNull();
    for (const field of changed) {
      expect([action, field, field in entry.after!]).toEqual([action, field, true]);
      expect([action, field, entry.before![field]]).not.toEqual([action, field, entry.after![field]]);
    }
    if (changed.length === 0) expect(entry.after).toEqual(entry.before);
  }
});

it('shows a price change: the fees before and after are in the updateBusiness entry', async () => {
  ok(await op.patch(`/v1/admin/businesses/${business}`, { fees: [{ payment_method: 'CARD', percent: 1.5, fixed: 250 }, { payment_method: 'BANK', percent: 0.5, fixed: 0 }] }), 'updateBusiness');
  const entry = await lastEntry('updateBusiness');
  expect(entry.after!.fees).toEqual([
    { payment_method: 'BANK', percent: 0.5, fixed_minor: 0 },
    { payment_method: 'CARD', percent: 1.5, fixed_minor: 25000 },
  ]);
  expect(entry.before!.fees).not.toEqual(entry.after!.fees);
});
