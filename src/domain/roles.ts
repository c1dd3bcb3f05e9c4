// Dashboard roles and what each may call. Pure: the HTTP layer asks, this answers.
// Every operation of admin.yaml has a rule here; test/domain/roles.test.ts fails when one is missing.

export const ROLES = ['operator_admin', 'operator_support', 'merchant_owner', 'merchant_developer', 'merchant_viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isOperator(role: Role): boolean {
  return role === 'operator_admin' || role === 'operator_support';
}

/** Higher is more; an operator role outranks every merchant role. */
const RANK: Record<Role, number> = {
  operator_admin: 5,
  operator_support: 4,
  merchant_owner: 3,
  merchant_developer: 2,
  merchant_viewer: 1,
};

/**
 * Who may give `target` to someone: an admin anything; a merchant owner merchant roles of its own
 * business (the caller checks the business). Nobody gives a role above their own, and support,
 * developers and viewers manage nobody.
 */
export function canGrant(granter: Role, target: Role): boolean {
  if (granter === 'operator_admin') return true;
  if (granter === 'merchant_owner') return !isOperator(target) && RANK[target] <= RANK[granter];
  return false;
}

/** The least merchant role that may call an operation on its own business; null = operators only. */
type MerchantLevel = 'merchant_viewer' | 'merchant_developer' | 'merchant_owner' | null;

export interface Rule {
  /** operator_support may call it (reads and webhook re-sends) */
  support: boolean;
  merchant: MerchantLevel;
}

/**
 * Where a sign-in stands: `active` is fully signed in; `totp_required` has given the password and owes
 * its code; `totp_enrolment_required` (an operator without an authenticator) must set one up first.
 */
export const SESSION_STATES = ['active', 'totp_required', 'totp_enrolment_required'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/**
 * What a session not yet fully signed in may call. One waiting for its code gives the code (or a
 * recovery code), reads its session or signs out: nothing else, and above all not enrolment, or the
 * password alone would let anyone set up an authenticator of their own and become `active`. One that
 * must enrol enrols, reads its session or signs out.
 */
const NOT_YET_ACTIVE: Record<Exclude<SessionState, 'active'>, ReadonlySet<string>> = {
  totp_required: new Set(['getSession', 'logout', 'verifyTotp']),
  totp_enrolment_required: new Set(['getSession', 'logout', 'startTotpEnrolment', 'confirmTotpEnrolment']),
};

/** Whether a session in `state` may call `operationId` at all (its role is asked separately). */
export function sessionMayCall(state: SessionState, operationId: string): boolean {
  return state === 'active' || NOT_YET_ACTIVE[state].has(operationId);
}

/** Signing in and out, two-factor set-up, one's own password: any signed-in user, for itself. */
export const SELF_SERVICE = new Set(['getSession', 'logout', 'verifyTotp', 'startTotpEnrolment', 'confirmTotpEnrolment', 'changeOwnPassword']);

const read = (merchant: MerchantLevel): Rule => ({ support: true, merchant });
const admin = (merchant: MerchantLevel = null): Rule => ({ support: false, merchant });

export const RULES: Record<string, Rule> = {
  createBusiness: admin(),
  listBusinesses: read(null),
  getBusiness: read('merchant_viewer'),
  updateBusiness: admin(),
  verifyBusiness: admin(),
  createWallet: admin(),
  // the approval threshold is the owner's; the handler keeps the limits the operator's
  updateWallet: admin('merchant_owner'),
  listWallets: read('merchant_viewer'),
  listWalletPostings: read('merchant_viewer'),
  getAdminWalletStatement: read('merchant_viewer'),
  exportAdminCollections: read('merchant_viewer'),
  exportAdminRefunds: read('merchant_viewer'),
  listAdminRefunds: read('merchant_viewer'),
  // whoever may see the business's collections may see its payment links; its owners may deactivate and reactivate one,
  // its owners and developers make one under one of its API tokens (the handler refuses operators)
  createAdminPaymentLink: admin('merchant_developer'),
  listAdminPaymentLinks: read('merchant_viewer'),
  getAdminPaymentLink: read('merchant_viewer'),
  listAdminDisputes: read('merchant_viewer'),
  getAdminDispute: read('merchant_viewer'),
  acceptAdminDispute: admin('merchant_owner'),
  deactivateAdminPaymentLink: admin('merchant_owner'),
  reactivateAdminPaymentLink: admin('merchant_owner'),
  getSettlementReport: read(null),
  getOverview: read('merchant_viewer'),
  listBusinessBalances: read('merchant_viewer'),
  createMid: admin(),
  listMids: read(null),
  updateMid: admin(),
  checkMidCredentials: admin(),
  createApiToken: admin('merchant_developer'),
  listApiTokens: read('merchant_viewer'),
  updateApiToken: admin('merchant_developer'),
  regenerateApiToken: admin('merchant_developer'),
  deleteApiToken: admin('merchant_developer'),
  setFxRate: admin(),
  listFxRates: read('merchant_viewer'),
  // the feeds' errors and the held jumps are the operator's; deciding a jump is an admin's money decision
  getFxRateWatch: read(null),
  acceptFxRateJump: admin(),
  refuseFxRateJump: admin(),
  // reconciliation: the processor's side, operators only; resolving moves money, so admins
  listReconciliationStatements: read(null),
  uploadReconciliationStatement: admin(),
  listReconciliationItems: read(null),
  exportReconciliationItems: read(null),
  resolveReconciliationItem: admin(),
  approveReconciliationItem: admin(),
  getReconciliationSettings: read(null),
  setReconciliationSettings: admin(),
  listAdminCollections: read('merchant_viewer'),
  getAdminCollection: read('merchant_viewer'),
  resolveHeldCollection: admin(),
  resolveHeldRefund: admin(),
  listAdminCollectionNotifications: read('merchant_viewer'),
  resendAdminNotification: { support: true, merchant: 'merchant_developer' },
  // money out: operator admins, and the merchant's owners and developers (docs/contract/refunds.md); not support
  createAdminRefund: admin('merchant_developer'),
  // money out from the dashboard: the business's owners only, with a fresh code (the handler refuses operators)
  createAdminDisbursement: admin('merchant_owner'),
  // four eyes on money out: the business's owners (the handler refuses operators and the requester)
  // whoever may see the business's collections may see its disbursements
  listAdminDisbursements: read('merchant_viewer'),
  exportAdminDisbursements: read('merchant_viewer'),
  getAdminDisbursement: read('merchant_viewer'),
  approveDisbursement: admin('merchant_owner'),
  rejectDisbursement: admin('merchant_owner'),
  // whoever may see the collection may see its refunds
  listAdminCollectionRefunds: read('merchant_viewer'),
  listFailingWebhooks: read(null),
  listBusinessDeliveries: read('merchant_viewer'),
  getCertification: read('merchant_viewer'),
  requestGoLive: admin('merchant_owner'),
  listGoLiveRequests: read(null),
  rotateCardKey: admin(),
  listUsers: read('merchant_owner'),
  updateUser: admin('merchant_owner'),
  createInvitation: admin('merchant_owner'),
  listInvitations: read('merchant_owner'),
  revokeInvitation: admin('merchant_owner'),
  // operator admins and, for its own business, the merchant owner (not support)
  listAuditLog: admin('merchant_owner'),
};

export type Decision = 'allow' | 'forbidden';

export function decide(role: Role, operationId: string): Decision {
  if (SELF_SERVICE.has(operationId)) return 'allow';
  const rule = RULES[operationId];
  if (!rule) return 'forbidden';
  if (role === 'operator_admin') return 'allow';
  if (role === 'operator_support') return rule.support ? 'allow' : 'forbidden';
  return rule.merchant !== null && RANK[role] >= RANK[rule.merchant] ? 'allow' : 'forbidden';
}
