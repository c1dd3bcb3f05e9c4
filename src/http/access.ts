// Who may call an operator operation: the operator key, or a signed-in person within its role and,
// for a merchant user, its own business (anything else is NOT_FOUND). It runs as openapi-backend's
// security handlers, before the request is validated, so a refused caller learns nothing of the rules.
// Every change that gets through is written to the audit log by `audited`.
import type { Context } from 'openapi-backend';
import type { OpenAPIBackend } from 'openapi-backend';
import { inOneChange } from '../db/change';
import { AppError } from '../errors';
import { decide, sessionMayCall } from '../domain/roles';
import type { Services } from '../wiring';
import type { AuditActor, TargetType } from '../people/audit';
import { SESSION_COOKIE } from '../people/sessions';
import type { Actor, SessionActor } from '../people/sessions';
import { MissingCredential } from './app';
import type { Handler, RequestContext } from './context';

const READS = new Set(['GET', 'HEAD']);
/** Lists whose `business_id` filter a merchant user cannot leave: it is set to its own business. */
const BUSINESS_FILTERED = new Set(['listAdminCollections', 'listAdminDisbursements', 'exportAdminCollections', 'exportAdminRefunds', 'exportAdminDisbursements', 'listAdminRefunds', 'listAdminPaymentLinks', 'listAdminDisputes', 'listUsers', 'listInvitations', 'listAuditLog', 'getOverview']);
const MAX_ID = 2_147_483_647;
/**
 * Changes that wait on a processor over the network and write nothing of ours but their audit entry
 * (a dispute's acceptance: the processor's word after it is recorded in its own transaction, as any word):
 * run outside one transaction, so no connection sits idle in a transaction for as long as the vendor
 * takes; the entry is written once the answer is in.
 */
const OUTSIDE_A_CHANGE = new Set(['checkMidCredentials', 'acceptAdminDispute']);

/** Path parameter -> the statement finding the business its record belongs to. */
const OWNER_OF: [string, string | null][] = [
  ['business_id', null],
  ['token_id', 'SELECT business_id FROM api_tokens WHERE id = $1'],
  ['mid_id', 'SELECT business_id FROM mids WHERE id = $1'],
  ['user_id', 'SELECT business_id FROM users WHERE id = $1'],
  ['invitation_id', 'SELECT business_id FROM invitations WHERE id = $1'],
  ['gateway_reference', 'SELECT business_id FROM collections WHERE gateway_reference = $1'],
  ['disbursement_reference', 'SELECT business_id FROM disbursements WHERE gateway_reference = $1'],
  ['refund_reference', 'SELECT business_id FROM refunds WHERE gateway_reference = $1'],
  ['link_id', 'SELECT business_id FROM payment_links WHERE link_id = $1'],
  ['dispute_reference', 'SELECT business_id FROM disputes WHERE gateway_reference = $1'],
];
/** Path parameters that are references (text), not numeric ids. */
const REFERENCES = new Set(['gateway_reference', 'disbursement_reference', 'refund_reference', 'link_id', 'dispute_reference']);

const isId = (v: string) => /^\d{1,10}$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_ID;
const notYours = () => new AppError('NOT_FOUND', 'No record of yours has this id');

/** The business a path's record belongs to; undefined when the path names none (or a malformed one: validation answers). */
async function ownerOf(c: Context, services: Services): Promise<number | null | undefined> {
  const params = c.request.params as Record<string, string>;
  for (const [name, sql] of OWNER_OF) {
    const value = params[name];
    if (value === undefined) continue;
    if (!REFERENCES.has(name) && !isId(value)) return undefined;
    if (sql === null) return Number(value);
    const row = await services.db.oneOrNone<{ business_id: number | null }>(sql, [REFERENCES.has(name) ? value : Number(value)]);
    return row ? row.business_id : null;
  }
  return undefined;
}

/** A merchant user reaches its own business only. */
async function confine(c: Context, actor: SessionActor, services: Services): Promise<void> {
  const own = actor.user.business_id;
  if (own === null) return;
  const owner = await ownerOf(c, services);
  if (owner !== undefined && owner !== own) throw notYours();
  const operationId = c.operation.operationId ?? '';
  if (BUSINESS_FILTERED.has(operationId)) {
    const query = c.request.query as Record<string, unknown>;
    if (query.business_id !== undefined && String(query.business_id) !== String(own)) throw notYours();
    query.business_id = String(own);
  }
}

async function checkSession(c: Context, services: Services): Promise<SessionActor> {
  const cookie = (c.request.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE];
  if (!cookie) throw new MissingCredential('UNAUTHORIZED', 'Sign in first: there is no session');
  const actor = await services.sessions.authenticate(cookie);
  if (!actor) throw new AppError('UNAUTHORIZED', 'Sign in again: the session has ended');
  const operationId = c.operation.operationId ?? '';
  if (!sessionMayCall(actor.session.state, operationId)) {
    throw new AppError('UNAUTHORIZED', 'Finish signing in first: two-factor authentication is pending');
  }
  if (!READS.has(c.request.method.toUpperCase()) && !services.sessions.csrfMatches(actor, c.request.headers['x-csrf-token'] as string | undefined)) {
    throw new AppError('CSRF_FAILED');
  }
  if (decide(actor.user.role, operationId) === 'forbidden') throw new AppError('FORBIDDEN');
  await confine(c, actor, services);
  return actor;
}

export type SecurityCheck = (c: Context) => Promise<unknown>;

/** The security handlers of admin.yaml: the operator key, or the session cookie with its role and scope. */
export function adminSecurity(services: Services): Record<string, SecurityCheck> {
  return {
    OperatorKey: async (c) => {
      const authorization = c.request.headers.authorization as string | undefined;
      const refused = services.accessTokens.authenticateOperator(authorization);
      if (!refused) return { type: 'operator_key' } satisfies Actor;
      return authorization ? refused : new MissingCredential(refused.code, refused.message);
    },
    SessionCookie: async (c) => {
      try {
        return await checkSession(c, services);
      } catch (e) {
        if (e instanceof AppError) return e;
        throw e;
      }
    },
  };
}

export function sessionActorOf(ctx: RequestContext): SessionActor {
  if (ctx.actor?.type !== 'user') throw new Error('session operation reached without a session');
  return ctx.actor;
}

interface Target {
  type: TargetType | null;
  /** the path parameter naming the record; none = the record is created, read from the answer */
  param?: string;
  /** the record is the caller's own user (signing out, two-factor set-up) */
  self?: true;
  /** the record's id read from the path's parameters (a wallet is named by its business and currency) */
  find?: string;
  /** the answer's field naming the created record, where it is not its `id` */
  answer?: string;
  /** the created record's id read from the answer's fields (a payment link is named by its link_id) */
  created?: string;
}

/** What each change touches, so its record can be read before and after. */
const TARGETS: Record<string, Target> = {
  createBusiness: { type: 'business' },
  updateBusiness: { type: 'business', param: 'business_id' },
  verifyBusiness: { type: 'business', param: 'business_id' },
  createWallet: { type: 'wallet' },
  updateWallet: { type: 'wallet', find: 'SELECT id FROM wallets WHERE business_id = $<business_id> AND currency = $<currency>' },
  createMid: { type: 'mid' },
  updateMid: { type: 'mid', param: 'mid_id' },
  checkMidCredentials: { type: 'mid', param: 'mid_id' },
  createApiToken: { type: 'api_token' },
  updateApiToken: { type: 'api_token', param: 'token_id' },
  regenerateApiToken: { type: 'api_token', param: 'token_id' },
  deleteApiToken: { type: 'api_token', param: 'token_id' },
  setFxRate: { type: 'fx_rate' },
  acceptFxRateJump: { type: 'fx_rate' },
  refuseFxRateJump: { type: 'fx_rate' },
  rotateCardKey: { type: 'card_key' },
  resendAdminNotification: { type: 'collection', param: 'gateway_reference' },
  resolveHeldCollection: { type: 'collection', param: 'gateway_reference' },
  resolveHeldRefund: { type: 'refund', param: 'refund_reference' },
  // named by its gateway_reference, as the API's own entry and the decisions name it (its timeline reads them)
  createAdminDisbursement: { type: 'disbursement', answer: 'gateway_reference' },
  approveDisbursement: { type: 'disbursement', param: 'disbursement_reference' },
  rejectDisbursement: { type: 'disbursement', param: 'disbursement_reference' },
  requestGoLive: { type: 'go_live_request' },
  createAdminPaymentLink: { type: 'payment_link', created: 'SELECT id FROM payment_links WHERE link_id = $<link_id>' },
  deactivateAdminPaymentLink: { type: 'payment_link', find: 'SELECT id FROM payment_links WHERE link_id = $<link_id>' },
  reactivateAdminPaymentLink: { type: 'payment_link', find: 'SELECT id FROM payment_links WHERE link_id = $<link_id>' },
  resolveReconciliationItem: { type: 'reconciliation_item', param: 'item_id' },
  approveReconciliationItem: { type: 'reconciliation_item', param: 'item_id' },
  updateUser: { type: 'user', param: 'user_id' },
  createInvitation: { type: 'invitation' },
  revokeInvitation: { type: 'invitation', param: 'invitation_id' },
  logout: { type: 'user', self: true },
  verifyTotp: { type: 'user', self: true },
  startTotpEnrolment: { type: 'user', self: true },
  confirmTotpEnrolment: { type: 'user', self: true },
  changeOwnPassword: { type: 'user', self: true },
};

type Data = Record<string, unknown> | null;

function idOf(data: Data): string | null {
  if (!data) return null;
  const id = data.id ?? data.key_id ?? data.business_id ?? (data.base && data.quote ? `${data.base}/${data.quote}` : null);
  return id === null || id === undefined ? null : String(id);
}

function auditActorOf(actor: Actor): AuditActor {
  return actor.type === 'user' ? { type: 'user', user: { id: actor.user.id, email: actor.user.email } } : actor;
}

/**
 * Wraps one change in one transaction: the target read before, the handler, the target read after and
 * the audit entry commit together, so there is no change without its entry and no entry without it
 * (except OUTSIDE_A_CHANGE, whose only write is the entry).
 */
function audited(operationId: string, handler: Handler): Handler {
  return async (c, ctx) => {
    const actor = ctx.actor;
    if (!actor) return handler(c, ctx); // anonymous operations (sign-in, invitations, resets) record themselves
    if (OUTSIDE_A_CHANGE.has(operationId)) return recorded(operationId, actor, handler, c, ctx);
    return inOneChange(ctx.services.db, () => recorded(operationId, actor, handler, c, ctx));
  };
}

async function recorded(operationId: string, actor: Actor, handler: Handler, c: Context, ctx: RequestContext) {
  const audit = ctx.services.audit;
  const target: Target = TARGETS[operationId] ?? { type: null };
  const params = c.request.params as Record<string, string>;
  let targetId = target.param ? params[target.param] : target.self && actor.type === 'user' ? String(actor.user.id) : null;
  if (target.find) targetId = (await ctx.services.db.oneOrNone<{ id: number }>(target.find, { ...params, business_id: Number(params.business_id) }))?.id.toString() ?? null;
  const before = target.type && targetId ? await audit.snapshot(target.type, targetId) : null;
  const reply = await handler(c, ctx);
  const data = ((reply.body as { data?: unknown }).data ?? null) as Data;
  if (target.created && data) targetId = (await ctx.services.db.oneOrNone<{ id: number }>(target.created, data))?.id.toString() ?? null;
  targetId ??= target.answer ? String(data?.[target.answer] ?? '') || null : idOf(data);
  const after = target.type && targetId ? await audit.snapshot(target.type, targetId) : null;
  const afterOrAnswer = after ?? (target.param && before ? null : data);
  const businessOf = (r: unknown) => ((r as Data)?.business_id as number | undefined) ?? null;
  const pathBusiness = params.business_id ? Number(params.business_id) : null;
  await audit.record({
    actor: auditActorOf(actor),
    action: operationId,
    businessId: pathBusiness ?? businessOf(after) ?? businessOf(before) ?? businessOf(data) ?? (actor.type === 'user' ? actor.user.business_id : null),
    targetType: target.type,
    targetId,
    before,
    after: afterOrAnswer,
    requestId: ctx.requestId,
  });
  return reply;
}

/**
 * A change may touch what this process keeps in memory (API tokens, businesses, fees, wallets, MIDs,
 * rates): its copy is dropped before the answer leaves, so this process's next request sees the change
 * at once. Other processes drop theirs on the NOTIFY the change sends (merchants/config-cache.ts).
 */
function dropsConfigCache(handler: Handler): Handler {
  return async (c, ctx) => {
    try {
      return await handler(c, ctx);
    } finally {
      ctx.services.configCache.invalidate();
    }
  };
}

/** Every operation of admin.yaml that is not a read gets its audit entry and drops the configuration cache. */
export function auditedHandlers(api: OpenAPIBackend, handlers: Record<string, Handler>): Record<string, Handler> {
  const out = { ...handlers };
  for (const op of api.getOperations()) {
    const id = op.operationId ?? '';
    if (!READS.has(op.method.toUpperCase()) && out[id]) out[id] = dropsConfigCache(audited(id, out[id]));
  }
  return out;
}
