// Dashboard people (admin.yaml, tags Users and Audit log): users, invitations, the audit log. The
// caller's role and business were checked by the security handler (src/http/access.ts).
import type { Context } from 'openapi-backend';
import type { Role } from '../../domain/roles';
import { userRecord } from '../../services/users';
import type { Handler, RequestContext } from '../context';
import { ok } from '../envelope';
import { pagedReply } from '../paging';

const body = <T>(c: Context) => c.request.requestBody as T;
const query = (c: Context) => c.request.query as Record<string, unknown>;
const optionalId = (v: unknown) => (v === undefined ? null : Number(v));

function actorOf(ctx: RequestContext) {
  if (!ctx.actor) throw new Error('operator operation reached without a caller');
  return ctx.actor;
}

const listUsers: Handler = (c, ctx) =>
  pagedReply(ctx, query(c), 'Users retrieved', (page) => ctx.services.users.list(optionalId(query(c).business_id), page));

const updateUser: Handler = async (c, ctx) =>
  ok(await ctx.services.users.update(actorOf(ctx), Number(c.request.params.user_id), body<{ name?: string | null; role?: Role; disabled?: boolean }>(c)), 'User updated');

const createInvitation: Handler = async (c, ctx) =>
  ok(await ctx.services.users.invite(actorOf(ctx), body<{ email: string; role: Role; business_id?: number }>(c)), 'Invitation sent');

const listInvitations: Handler = (c, ctx) =>
  pagedReply(ctx, query(c), 'Invitations retrieved', (page) => ctx.services.users.listInvitations(optionalId(query(c).business_id), page));

const revokeInvitation: Handler = async (c, ctx) => {
  await ctx.services.users.revokeInvitation(Number(c.request.params.invitation_id));
  return ok(null, 'Invitation withdrawn');
};

const acceptInvitation: Handler = async (c, ctx) => {
  const { token, password, name } = body<{ token: string; password: string; name?: string }>(c);
  const user = await ctx.services.users.acceptInvitation(token, password, name ?? null);
  const audit = ctx.services.audit;
  await audit.record({ actor: { type: 'user', user }, action: 'acceptInvitation', businessId: user.business_id, targetType: 'user', targetId: String(user.id), before: null, after: await audit.snapshot('user', user.id), requestId: ctx.requestId });
  return ok(userRecord(user), 'Welcome; sign in with your email and password');
};

const listAuditLog: Handler = (c, ctx) =>
  pagedReply(ctx, query(c), 'Audit entries retrieved', (page) =>
    ctx.services.audit.list({ businessId: optionalId(query(c).business_id), actorUserId: optionalId(query(c).actor_user_id) }, page),
  );

export const merchant: Record<string, Handler> = {};
export const admin: Record<string, Handler> = { listUsers, updateUser, createInvitation, listInvitations, revokeInvitation, acceptInvitation, listAuditLog };
