// What waits for a signed-in merchant person's decision: the business's disbursements waiting for an
// owner's approval, and how many of them this person may approve (the four-eyes rule of
// src/disbursements/approvals.ts), for the overview and the menu's badge.
import type { Waiting } from '../../disbursements/approvals';
import type { UserRow } from '../../people/users';
import type { RequestContext } from '../context';

/** null for an operator (no business of their own). */
export function waitingOf(ctx: RequestContext, user: UserRow): Promise<Waiting> | null {
  if (user.business_id === null) return null;
  return ctx.services.disbursements.waitingFor(user.business_id, { userId: user.id, ownerSince: user.owner_since });
}
