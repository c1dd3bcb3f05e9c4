// Dashboard users: accounts with roles, invitations that expire, password resets by email,
// the first operator account and the sandbox demo merchant user. Emails go through the outbox. A person
// who becomes an owner of a business (invited as one, or given the role) is announced to its other owners
// and to the operator admins, and approves disbursements only once OWNER_APPROVAL_WAIT_HOURS have passed
// (owner_since; docs/contract/disbursements.md, "Four eyes").
import { createHash, randomBytes } from 'node:crypto';
import { writeSecretFile } from '../config';
import { AppError, validationError } from '../errors';
import type { Tx } from '../db';
import { where } from '../db/filters';
import type { FilterTable } from '../db/filters';
import { BY_ID, listPage } from '../db/keyset';
import type { ListPage, PageRequest } from '../db/keyset';
import { canGrant, isOperator } from '../domain/roles';
import type { Role } from '../domain/roles';
import { apiTime, apiTimeOrNull, emailTime } from '../domain/time';
import { hashSecret } from '../merchants/access-tokens';
import type { AuditService } from './audit';
import type { Base } from '../base';
import type { Actor } from './sessions';
import { announceOwner } from './owner-joined';
import type { Announcing } from './owner-joined';
import { FailureThrottle } from '../merchants/failure-throttle';
import type { NotificationService } from '../notifications/notifications';

export interface UserRow {
  id: number;
  email: string;
  name: string | null;
  password_hash: string;
  role: Role;
  business_id: number | null;
  totp_secret_enc: string | null;
  /** a replacement secret waiting for its first code */
  totp_pending_secret_enc: string | null;
  totp_enabled_at: Date | null;
  totp_last_step: number | bigint | null;
  disabled_at: Date | null;
  last_login_at: Date | null;
  created_at: Date;
  /** when the person became an owner of their business; null for other roles */
  owner_since: Date | null;
}

interface InvitationRow {
  id: number;
  email: string;
  role: Role;
  business_id: number | null;
  invited_by_email: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

export const INVITATION_TTL_MS = 72 * 3_600_000;
export const RESET_TTL_MS = 30 * 60_000;
export const OPERATOR_USER_FILE = 'operator-user.json';
export const DEMO_USER_FILE = 'demo-user.json';
export const DEMO_USER_EMAIL = 'demo-owner@paycollect.local';
/** Serialises two processes creating the first operator of an empty deployment. */
const FIRST_OPERATOR_LOCK = 4_242_050;
/**
 * Serialises changes to one team's people (a business's, or the operators' as team 0): the check that a
 * change leaves an active owner (or operator admin) and the change itself are one step, so two people
 * demoting each other at once cannot both succeed. A lock per team, taken before any user row.
 */
const TEAM_LOCK = 4_242_060;

/** A list of users or invitations: a merchant owner's is its business's, an operator's every business's (business_id null). */
const OF_BUSINESS: FilterTable<{ business_id: number | null }> = [{ field: 'business_id', column: 'business_id', operator: '=' }];

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export function userRecord(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    business_id: u.business_id,
    totp_enabled: u.totp_enabled_at !== null,
    disabled: u.disabled_at !== null,
    created_at: apiTime(u.created_at),
    last_login_at: apiTimeOrNull(u.last_login_at),
  };
}

/** An invitation that can still be accepted, else the one refusal for every reason (no link says which). */
function usableInvitation<I extends InvitationRow>(inv: I | null, now: Date): I {
  if (!inv || inv.accepted_at || inv.revoked_at || inv.expires_at <= now) {
    throw new AppError('INVALID_STATE', 'This invitation is unknown, withdrawn, used or expired; ask for a new one');
  }
  return inv;
}

function invitationRecord(i: InvitationRow) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    business_id: i.business_id,
    invited_by: i.invited_by_email,
    created_at: apiTime(i.created_at),
    expires_at: apiTime(i.expires_at),
    accepted_at: apiTimeOrNull(i.accepted_at),
  };
}

/** The role an actor acts with: the operator key may do what an admin may. */
export function roleOf(actor: Actor): Role {
  return actor.type === 'operator_key' ? 'operator_admin' : actor.user.role;
}

/** A generated password: 24 base64url characters (144 bits). */
const newPassword = () => randomBytes(18).toString('base64url');

export interface NewUser {
  email: string;
  role: Role;
  business_id: number | null;
  name?: string | null;
  password: string;
}

export interface GeneratedLogin {
  email: string;
  password: string;
  file: string;
}

export class UserService {
  private readonly throttle: FailureThrottle;

  constructor(private readonly s: Base & { audit: AuditService; notifications: Pick<NotificationService, 'enqueueEmails'> }) {
    this.throttle = new FailureThrottle(() => s.db, s.now);
  }

  async insert(t: Tx, u: NewUser): Promise<UserRow> {
    const now = this.s.now();
    return t.one<UserRow>(
      `INSERT INTO users (email, name, password_hash, role, business_id, created_at, owner_since) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [u.email.toLowerCase(), u.name ?? null, await hashSecret(u.password), u.role, u.business_id, now, u.role === 'merchant_owner' ? now : null],
    );
  }

  /** What an owner's announcement needs to know (owner-joined.ts). */
  private announcing(): Announcing {
    return { now: this.s.now(), waitHours: this.s.config.ownerApprovalWaitHours, enqueueEmails: (t, c, e) => this.s.notifications.enqueueEmails(t, c, e) };
  }

  /** First start: an operator admin with a generated password, printed once and kept in DATA_DIR. */
  async ensureFirstOperator(): Promise<GeneratedLogin | null> {
    if (await this.s.db.oneOrNone(`SELECT 1 FROM users WHERE role = 'operator_admin' LIMIT 1`)) return null;
    const password = newPassword();
    const email = this.s.config.adminEmail;
    return this.s.db.tx(async (t) => {
      await t.one('SELECT pg_advisory_xact_lock($1)', [FIRST_OPERATOR_LOCK]);
      if (await t.oneOrNone(`SELECT 1 FROM users WHERE role = 'operator_admin' LIMIT 1`)) return null;
      await this.insert(t, { email, role: 'operator_admin', business_id: null, password });
      const file = writeSecretFile(this.s.config.dataDir, OPERATOR_USER_FILE, { email, password, sign_in: `${this.s.config.publicBaseUrl}/dashboard` });
      this.s.log.info('first operator account created', { email, file });
      return { email, password, file };
    });
  }

  /** The sandbox demo's merchant owner, created with the demo merchant. */
  async createDemoUser(businessId: number): Promise<GeneratedLogin> {
    const password = newPassword();
    await this.s.db.tx((t) => this.insert(t, { email: DEMO_USER_EMAIL, role: 'merchant_owner', business_id: businessId, name: 'Demo Owner', password }));
    const file = writeSecretFile(this.s.config.dataDir, DEMO_USER_FILE, {
      email: DEMO_USER_EMAIL,
      password,
      business_id: businessId,
      sign_in: `${this.s.config.publicBaseUrl}/dashboard`,
    });
    return { email: DEMO_USER_EMAIL, password, file };
  }

  /** Oldest first; a merchant owner's call comes with its own business_id. */
  async list(businessId: number | null, page: PageRequest): Promise<ListPage<ReturnType<typeof userRecord>>> {
    const w = where(OF_BUSINESS, { business_id: businessId });
    const found = await listPage<UserRow>(this.s.db, { sql: `SELECT * FROM users WHERE ${w.text}`, values: w.values, key: BY_ID, direction: 'ASC' }, page);
    return { ...found, rows: found.rows.map(userRecord) };
  }

  async get(id: number): Promise<UserRow> {
    const row = await this.s.db.oneOrNone<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
    if (!row) throw new AppError('NOT_FOUND', 'No user has this id');
    return row;
  }

  async update(actor: Actor, id: number, patch: { name?: string | null; role?: Role; disabled?: boolean }) {
    const granter = roleOf(actor);
    const updated = await this.s.db.tx(async (t) => {
      const team = await t.oneOrNone<{ business_id: number | null }>('SELECT business_id FROM users WHERE id = $1', [id]);
      if (!team) throw new AppError('NOT_FOUND', 'No user has this id');
      // a user never changes team, so the lock read from the row before it is the row's team's lock
      await t.one('SELECT pg_advisory_xact_lock($1::int, $2::int)', [TEAM_LOCK, team.business_id ?? 0]);
      const user = await t.one<UserRow>('SELECT * FROM users WHERE id = $1 FOR UPDATE', [id]);
      if (!canGrant(granter, user.role)) throw new AppError('FORBIDDEN', 'You may not change a user whose role is above yours');
      if (patch.role !== undefined) {
        if (isOperator(patch.role) !== isOperator(user.role)) {
          throw validationError([{ field: 'role', message: 'an operator stays an operator and a merchant user a merchant user' }]);
        }
        if (!canGrant(granter, patch.role)) throw new AppError('FORBIDDEN', 'You may not give a role above your own');
      }
      const demotes = user.role === 'operator_admin' && ((patch.role ?? user.role) !== 'operator_admin' || patch.disabled === true);
      if (demotes && !(await t.oneOrNone(`SELECT 1 FROM users WHERE role = 'operator_admin' AND disabled_at IS NULL AND id <> $1 LIMIT 1`, [id]))) {
        throw new AppError('INVALID_STATE', 'This is the last active operator admin; make another one first');
      }
      // A business's own people cannot leave it without an active owner (nobody would be left to manage
      // its team); operators may, when they close a business down.
      const ownerLeaves = user.role === 'merchant_owner' && ((patch.role ?? user.role) !== 'merchant_owner' || patch.disabled === true);
      if (ownerLeaves && !isOperator(granter) && !(await this.anotherActiveOwner(t, user))) {
        throw new AppError('INVALID_STATE', 'This is the last active owner of the business; make another one first');
      }
      const disabledAt = patch.disabled === undefined ? user.disabled_at : patch.disabled ? (user.disabled_at ?? this.s.now()) : null;
      const role = patch.role ?? user.role;
      const becomesOwner = role === 'merchant_owner' && user.role !== 'merchant_owner';
      const ownerSince = role !== 'merchant_owner' ? null : becomesOwner ? this.s.now() : user.owner_since;
      const row = await t.one<UserRow>('UPDATE users SET name = $2, role = $3, disabled_at = $4, owner_since = $5 WHERE id = $1 RETURNING *', [
        id,
        patch.name === undefined ? user.name : patch.name,
        role,
        disabledAt,
        ownerSince,
      ]);
      if (disabledAt) await t.none('DELETE FROM user_sessions WHERE user_id = $1', [id]);
      if (becomesOwner) await announceOwner(t, this.announcing(), row, `made an owner by ${actor.type === 'user' ? actor.user.email : 'the operator key'}`);
      return userRecord(row);
    });
    if (patch.role === 'merchant_owner') this.s.kick('emails');
    return updated;
  }

  /** Read under the team's lock (update), so a concurrent change to the team has committed or waits. */
  private async anotherActiveOwner(t: Tx, user: UserRow): Promise<boolean> {
    const other = await t.oneOrNone(
      `SELECT 1 FROM users WHERE business_id = $1 AND role = 'merchant_owner' AND disabled_at IS NULL AND id <> $2 LIMIT 1`,
      [user.business_id, user.id],
    );
    return other !== null;
  }

  async invite(actor: Actor, input: { email: string; role: Role; business_id?: number }) {
    if (!canGrant(roleOf(actor), input.role)) throw new AppError('FORBIDDEN', 'You may not give a role above your own');
    const businessId = input.business_id ?? null;
    if (isOperator(input.role) !== (businessId === null)) {
      throw validationError([{ field: 'business_id', message: 'a merchant role needs business_id; an operator role has none' }]);
    }
    if (actor.type === 'user' && actor.user.business_id !== null && actor.user.business_id !== businessId) {
      throw new AppError('NOT_FOUND', 'No business of yours has this id');
    }
    const email = input.email.toLowerCase();
    const token = `inv_${randomBytes(24).toString('base64url')}`;
    const now = this.s.now();
    const row = await this.s.db.tx(async (t) => {
      const business = businessId === null ? null : await t.oneOrNone<{ name: string }>('SELECT name FROM businesses WHERE id = $1', [businessId]);
      if (businessId !== null && !business) throw new AppError('NOT_FOUND', 'No business has this id');
      // An email is one account in the whole deployment. The inviter hears so only when it can see that
      // account anyway (an operator, or a user of its own business); otherwise the answer is the one
      // for a new email, and the address's owner is told instead, so no business learns who has an
      // account elsewhere.
      const holder = await t.oneOrNone<{ business_id: number | null }>('SELECT business_id FROM users WHERE email = $1', [email]);
      const inviterBusiness = actor.type === 'user' ? actor.user.business_id : null;
      if (holder && (inviterBusiness === null || holder.business_id === inviterBusiness)) throw new AppError('INVALID_STATE', 'A user already has this email');
      await t.none('UPDATE invitations SET revoked_at = $2 WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [email, now]);
      const inviter = actor.type === 'user' ? actor.user : null;
      const created = await t.one<InvitationRow>(
        `INSERT INTO invitations (email, role, business_id, token_hash, invited_by_user_id, invited_by_email, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [email, input.role, businessId, tokenHash(token), inviter?.id ?? null, inviter?.email ?? null, now, new Date(now.getTime() + INVITATION_TTL_MS)],
      );
      const where = business ? ` of ${business.name}` : '';
      if (holder) {
        await this.enqueueEmail(t, 'invitation', email, 'You are invited to the PayCollect dashboard', [
          `You are invited to the PayCollect dashboard as ${input.role.replace('_', ' ')}${where}.`,
          '',
          'This email already belongs to a dashboard account, and an email can belong to one account only, so',
          'this invitation cannot be accepted. If you want to join, ask whoever invited you to invite another',
          'address of yours. Your account is unchanged.',
        ]);
        return created;
      }
      const link = `${this.s.config.publicBaseUrl}/dashboard/accept-invitation?token=${token}`;
      await this.enqueueEmail(t, 'invitation', email, 'You are invited to the PayCollect dashboard', [
        `You are invited to the PayCollect dashboard as ${input.role.replace('_', ' ')}${where}.`,
        '',
        `Choose your password here before ${emailTime(created.expires_at)}:`,
        link,
        '',
        'If you did not expect this, ignore this email.',
      ]);
      return created;
    });
    this.s.kick('emails');
    return invitationRecord(row);
  }

  /** Pending invitations (expired ones included), newest first. */
  async listInvitations(businessId: number | null, page: PageRequest): Promise<ListPage<ReturnType<typeof invitationRecord>>> {
    const w = where(OF_BUSINESS, { business_id: businessId });
    const sql = `SELECT * FROM invitations WHERE accepted_at IS NULL AND revoked_at IS NULL AND ${w.text}`;
    const found = await listPage<InvitationRow>(this.s.db, { sql, values: w.values, key: BY_ID, direction: 'DESC' }, page);
    return { ...found, rows: found.rows.map(invitationRecord) };
  }

  async revokeInvitation(id: number): Promise<void> {
    const row = await this.s.db.oneOrNone<InvitationRow>('SELECT * FROM invitations WHERE id = $1 AND revoked_at IS NULL', [id]);
    if (!row) throw new AppError('NOT_FOUND', 'No pending invitation has this id');
    if (row.accepted_at) throw new AppError('INVALID_STATE', 'The invitation was already accepted');
    await this.s.db.none('UPDATE invitations SET revoked_at = $2 WHERE id = $1', [id, this.s.now()]);
  }

  /** What a pending invitation is for (its page says so before a password is chosen); refused as acceptInvitation refuses. */
  async lookUpInvitation(token: string) {
    const inv = usableInvitation(
      await this.s.db.oneOrNone<InvitationRow & { business_name: string | null }>(
        'SELECT i.*, b.name AS business_name FROM invitations i LEFT JOIN businesses b ON b.id = i.business_id WHERE i.token_hash = $1',
        [tokenHash(token)],
      ),
      this.s.now(),
    );
    const { email, role, business_id, invited_by, expires_at } = invitationRecord(inv);
    return { email, role, business_id, business_name: inv.business_name, invited_by, expires_at };
  }

  async acceptInvitation(token: string, password: string, name: string | null): Promise<UserRow> {
    const accepted = await this.s.db.tx(async (t) => {
      const inv = usableInvitation(await t.oneOrNone<InvitationRow>('SELECT * FROM invitations WHERE token_hash = $1 FOR UPDATE', [tokenHash(token)]), this.s.now());
      if (await t.oneOrNone('SELECT 1 FROM users WHERE email = $1', [inv.email])) throw new AppError('INVALID_STATE', 'A user already has this email');
      await t.none('UPDATE invitations SET accepted_at = $2 WHERE id = $1', [inv.id, this.s.now()]);
      const user = await this.insert(t, { email: inv.email, role: inv.role, business_id: inv.business_id, name, password });
      if (user.role === 'merchant_owner') await announceOwner(t, this.announcing(), user, `invited by ${inv.invited_by_email ?? 'the operator key'}`);
      return user;
    });
    if (accepted.role === 'merchant_owner') this.s.kick('emails');
    return accepted;
  }

  /** Always the same answer, whether or not the email is a user's (no account discovery). */
  async requestPasswordReset(email: string, clientAddress: string): Promise<void> {
    const normalized = email.toLowerCase();
    const user = await this.s.db.oneOrNone<UserRow>('SELECT * FROM users WHERE email = $1 AND disabled_at IS NULL', [normalized]);
    // every request counts: at most 10 reset emails a minute per email and per client address
    await this.throttle.count([`reset:${normalized}`, `reset-addr:${clientAddress}`]);
    await this.s.audit.attempted({ action: 'requestPasswordReset', user, bySessionOf: false, attempt: { email: normalized, client_address: clientAddress, sent: user !== null } });
    if (!user) return;
    const token = `rst_${randomBytes(24).toString('base64url')}`;
    const now = this.s.now();
    await this.s.db.tx(async (t) => {
      await t.none('INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
        tokenHash(token),
        user.id,
        now,
        new Date(now.getTime() + RESET_TTL_MS),
      ]);
      await this.enqueueEmail(t, 'password_reset', user.email, 'Reset your PayCollect dashboard password', [
        'Someone asked to reset the password of your PayCollect dashboard account.',
        '',
        'Choose a new password here within 30 minutes:',
        `${this.s.config.publicBaseUrl}/dashboard/reset-password?token=${token}`,
        '',
        'If it was not you, ignore this email: your password stays as it is.',
      ]);
    });
    this.s.kick('emails');
  }

  async completePasswordReset(token: string, password: string): Promise<UserRow> {
    const passwordHash = await hashSecret(password);
    return this.s.db.tx(async (t) => {
      // a link sent before its user was disabled does not let a disabled user back in
      const reset = await t.oneOrNone<{ user_id: number; expires_at: Date; used_at: Date | null; disabled_at: Date | null }>(
        'SELECT r.*, u.disabled_at FROM password_resets r JOIN users u ON u.id = r.user_id WHERE r.token_hash = $1 FOR UPDATE OF r',
        [tokenHash(token)],
      );
      if (!reset || reset.used_at || reset.expires_at <= this.s.now() || reset.disabled_at) {
        throw new AppError('INVALID_STATE', 'This reset link is unknown, used or expired; ask for a new email');
      }
      await t.none('UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [reset.user_id, this.s.now()]);
      await t.none('DELETE FROM user_sessions WHERE user_id = $1', [reset.user_id]);
      return t.one<UserRow>('UPDATE users SET password_hash = $2 WHERE id = $1 RETURNING *', [reset.user_id, passwordHash]);
    });
  }

  private async enqueueEmail(t: Tx, kind: string, recipient: string, subject: string, lines: string[]): Promise<void> {
    await this.s.notifications.enqueueEmails(t, null, [{ kind, recipient, subject, text: lines.join('\n') }]);
  }
}
