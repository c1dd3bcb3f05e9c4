// Dashboard people (admin.yaml, tags Users and Audit log): users, invitations, the audit log. The
// caller's role and business were checked by the security handler (src/http/access.ts).
import { parseApiTime } from '../../domain/time';
import { userRecord } from '../../people/users';
import type { RequestContext } from '../context';
import { ok } from '../envelope';
import { pagedReply } from '../paging';
import { typedHandlers } from '../typed';

const optionalId = (v: string | undefined) => (v === undefined ? null : Number(v));

function actorOf(ctx: RequestContext) {
  if (!ctx.actor) throw new Error('operator operation reached without a caller');
  return ctx.actor;
}

export const merchant = {};
export const admin = typedHandlers({
  listUsers: ({ query }, ctx) => pagedReply(ctx, query, 'Users retrieved', (page) => ctx.services.users.list(optionalId(query.business_id), page)),

  updateUser: async ({ path, body }, ctx) => ok(await ctx.services.users.update(actorOf(ctx), Number(path.user_id), body), 'User updated'),

  createInvitation: async ({ body }, ctx) => ok(await ctx.services.users.invite(actorOf(ctx), body), 'Invitation sent'),

  listInvitations: ({ query }, ctx) =>
    pagedReply(ctx, query, 'Invitations retrieved', (page) => ctx.services.users.listInvitations(optionalId(query.business_id), page)),

  revokeInvitation: async ({ path }, ctx) => {
    await ctx.services.users.revokeInvitation(Number(path.invitation_id));
    return ok(null, 'Invitation withdrawn');
  },

  lookUpInvitation: async ({ body }, ctx) => ok(await ctx.services.users.lookUpInvitation(body.token), 'Invitation retrieved'),

  acceptInvitation: async ({ body }, ctx) => {
    const user = await ctx.services.users.acceptInvitation(body.token, body.password, body.name ?? null);
    const audit = ctx.services.audit;
    await audit.record({ actor: { type: 'user', user }, action: 'acceptInvitation', businessId: user.business_id, targetType: 'user', targetId: String(user.id), before: null, after: await audit.snapshot('user', user.id), requestId: ctx.requestId });
    return ok(userRecord(user), 'Welcome; sign in with your email and password');
  },

  listAuditLog: ({ query }, ctx) =>
    pagedReply(ctx, query, 'Audit entries retrieved', (page) =>
      ctx.services.audit.list(
        {
          businessId: optionalId(query.business_id),
          actorUserId: optionalId(query.actor_user_id),
          action: query.action,
          from: query.from === undefined ? undefined : parseApiTime(query.from),
          to: query.to === undefined ? undefined : parseApiTime(query.to),
        },
        page,
      ),
    ),
});
