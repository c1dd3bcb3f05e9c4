// Dashboard sign-in (admin.yaml, tag Session): sessions, the second factor, passwords and their resets.
import type { RequestContext } from '../context';
import { clientAddress as addressOf } from '../context';
import { ok } from '../envelope';
import { sessionActorOf } from '../access';
import { typedHandlers } from '../typed';
import type { SessionRow } from '../../people/sessions';
import type { UserRow } from '../../people/users';
import { waitingOf } from './waiting';

const clientAddress = (ctx: RequestContext) => addressOf(ctx) ?? 'unknown';

/**
 * The session as the API shows it, with how many disbursements wait for this person's approval: 0 until
 * signed in fully, and for whoever is not an owner (only owners approve), without asking the database.
 */
async function sessionView(ctx: RequestContext, row: SessionRow, user: UserRow) {
  const waiting = row.state === 'active' && user.owner_since !== null ? await waitingOf(ctx, user) : null;
  return { ...(await ctx.services.sessions.view(row, user)), waiting_for_you: waiting?.forYou ?? 0 };
}

export const merchant = typedHandlers({});
export const admin = typedHandlers({
  login: async ({ body: { email, password } }, ctx) => {
    const { sessions, audit } = ctx.services;
    const { id, row, user } = await sessions.login(email, password, clientAddress(ctx));
    await audit.record({ actor: { type: 'user', user }, action: 'login', businessId: user.business_id, targetType: 'session', targetId: null, before: null, after: { state: row.state }, requestId: ctx.requestId });
    return ok(await sessionView(ctx, row, user), 'Signed in', { 'Set-Cookie': sessions.cookie(id) });
  },

  getSession: async (_input, ctx) => {
    const actor = sessionActorOf(ctx);
    return ok(await sessionView(ctx, actor.session, actor.user), 'Session retrieved');
  },

  logout: async (_input, ctx) => {
    await ctx.services.sessions.logout(sessionActorOf(ctx));
    return ok(null, 'Signed out', { 'Set-Cookie': ctx.services.sessions.cookie(null) });
  },

  verifyTotp: async ({ body }, ctx) => {
    const actor = sessionActorOf(ctx);
    const { id, row } = await ctx.services.totp.verify(actor, body);
    const user = await ctx.services.users.get(actor.user.id);
    return ok(await sessionView(ctx, row, user), 'Second factor accepted', { 'Set-Cookie': ctx.services.sessions.cookie(id) });
  },

  startTotpEnrolment: async ({ body }, ctx) =>
    ok(await ctx.services.totp.start(sessionActorOf(ctx), body ?? {}), 'Scan the code, then confirm a code from your app'),

  confirmTotpEnrolment: async ({ body }, ctx) => {
    const actor = sessionActorOf(ctx);
    const { codes, rotated } = await ctx.services.totp.confirm(actor, body.code);
    const user = await ctx.services.users.get(actor.user.id);
    return ok(
      { recovery_codes: codes, session: await sessionView(ctx, rotated.row, user) },
      'Two-factor authentication is on; store the recovery codes now, they are not shown again',
      { 'Set-Cookie': ctx.services.sessions.cookie(rotated.id) },
    );
  },

  changeOwnPassword: async ({ body: { current_password, new_password } }, ctx) => {
    const actor = sessionActorOf(ctx);
    const { id, row } = await ctx.services.sessions.changePassword(actor, current_password, new_password);
    const user = await ctx.services.users.get(actor.user.id);
    return ok(await sessionView(ctx, row, user), 'Password changed; your other sessions have ended', { 'Set-Cookie': ctx.services.sessions.cookie(id) });
  },

  requestPasswordReset: async ({ body }, ctx) => {
    await ctx.services.users.requestPasswordReset(body.email, clientAddress(ctx));
    return ok(null, 'If this email belongs to a user, a reset link is on its way');
  },

  completePasswordReset: async ({ body: { token, new_password } }, ctx) => {
    const user = await ctx.services.users.completePasswordReset(token, new_password);
    await ctx.services.audit.record({ actor: { type: 'user', user }, action: 'completePasswordReset', businessId: user.business_id, targetType: 'user', targetId: String(user.id), before: null, after: null, requestId: ctx.requestId });
    return ok(null, 'Password changed; sign in with the new password');
  },
});
