// A new owner of a business, announced (docs/contract/disbursements.md, "Four eyes"): an owner approves
// disbursements and manages the team, so nobody becomes one unnoticed. Every other active owner of the
// business and every active operator admin is emailed, with when the new owner may start approving.
import type { Tx } from '../db';
import { emailTime } from '../domain/time';
import type { NotificationService } from '../notifications/notifications';

export interface NewOwner {
  id: number;
  email: string;
  business_id: number | null;
  owner_since: Date | null;
}

/** What an announcement needs: the time, the waiting period, and the outbox it is written to. */
export interface Announcing {
  now: Date;
  waitHours: number;
  /** the notifications wing's outbox, in the caller's transaction */
  enqueueEmails: NotificationService['enqueueEmails'];
}

/** The announcement, written to the email outbox in `t`; `how`: invited by whom, or given the role by whom. */
export async function announceOwner(t: Tx, o: Announcing, owner: NewOwner, how: string): Promise<void> {
  const since = owner.owner_since ?? o.now;
  const approves = new Date(since.getTime() + o.waitHours * 3_600_000);
  const business = await t.one<{ name: string }>('SELECT name FROM businesses WHERE id = $1', [owner.business_id]);
  const text = [
    `${owner.email} became an owner of ${business.name} on ${emailTime(since)} (${how}).`,
    '',
    "An owner approves disbursements and manages the business's team. A new owner may approve",
    `disbursements only from ${emailTime(approves)} on, so that a second owner who is not a second person`,
    'is noticed before any money moves on their word.',
    '',
    'If you did not expect this, an owner can disable the account in the dashboard (Team), or tell the',
    'operator.',
  ].join('\n');
  const recipients = await t.any<{ email: string }>(
    `SELECT u.email FROM users u
     WHERE u.disabled_at IS NULL AND u.id <> $2 AND ((u.business_id = $1 AND u.role = 'merchant_owner') OR u.role = 'operator_admin')
     ORDER BY u.id`,
    [owner.business_id, owner.id],
  );
  const subject = `New owner of ${business.name}: ${owner.email}`;
  await o.enqueueEmails(t, null, recipients.map((r) => ({ kind: 'owner_joined', recipient: r.email, subject, text })));
}
