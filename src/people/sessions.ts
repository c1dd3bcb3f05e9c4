// Dashboard sessions in PostgreSQL: a random id in an HttpOnly cookie, only its SHA-256 stored; an
// idle and an absolute timeout; a new id at sign-in and after the second factor; a synchronizer CSRF
// token per session. express-session was not used: it reads Date.now() (our clock is injected, and
// the timeout tests move it), knows no absolute timeout or "second factor pending" state, and its
// PostgreSQL store keeps its own pool beside ours (one connection only on embedded PostgreSQL).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { verify } from '@node-rs/argon2';
import { AppError, validationError } from '../errors';
import type { Tx } from '../db';
import { apiTime } from '../domain/time';
import { isOperator } from '../domain/roles';
import type { SessionState } from '../domain/roles';
import { hashSecret } from '../merchants/access-tokens';
import type { AuditService } from './audit';
import type { Base } from '../base';
import { FailureThrottle } from '../merchants/failure-throttle';
import type { UserRow } from './users';
import { userRecord } from './users';

export type { SessionState };

export interface SessionRow {
  id_hash: string;
  user_id: number;
  state: SessionState;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
}

/** The signed-in caller of a cookie-authenticated request. */
export interface SessionActor {
  type: 'user';
  user: UserRow;
  session: SessionRow;
}

/** Who makes an operator API call: a signed-in person, or the operator key (automation, CLI). */
export type Actor = SessionActor | { type: 'operator_key' };

export const SESSION_COOKIE = 'pc_session';
const ID_BYTES = 32;

export const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

// Verifying against this keeps an unknown email as slow as a wrong password.
let decoyHash: Promise<string> | null = null;

export class SessionService {
  private readonly throttle: FailureThrottle;

  constructor(private readonly s: Base & { audit: AuditService }) {
    this.throttle = new FailureThrottle(() => s.db, s.now);
  }

  private get idleMs() {
    return this.s.config.sessionIdleMinutes * 60_000;
  }

  /** Checks the password and opens a session; its state says whether a second factor comes next. */
  async login(email: string, password: string, clientAddress: string): Promise<{ id: string; row: SessionRow; user: UserRow }> {
    const normalized = email.toLowerCase();
    const user = await this.throttle.attempt([`login:${normalized}`, `login-addr:${clientAddress}`], async () => {
      const row = await this.s.db.oneOrNone<UserRow>('SELECT * FROM users WHERE email = $1', [normalized]);
      decoyHash ??= hashSecret(randomBytes(16).toString('hex'));
      const good = await verify(row ? row.password_hash : await decoyHash, password);
      if (!row || !good || row.disabled_at) {
        const reason = !row ? 'unknown_email' : !good ? 'wrong_password' : 'disabled';
        await this.s.audit.attempted({ action: 'loginFailed', user: row, bySessionOf: false, attempt: { email: normalized, reason, client_address: clientAddress } });
        throw new AppError('UNAUTHORIZED', 'The email or the password is wrong');
      }
      return row;
    });
    const state: SessionState = user.totp_enabled_at ? 'totp_required' : isOperator(user.role) ? 'totp_enrolment_required' : 'active';
    const now = this.s.now();
    const absolute = new Date(now.getTime() + this.s.config.sessionAbsoluteHours * 3_600_000);
    const opened = await this.s.db.tx(async (t) => {
      // the user's ended sessions go here; one never presented again would otherwise stay forever
      await t.none('DELETE FROM user_sessions WHERE user_id = $1 AND (last_seen_at <= $2 OR absolute_expires_at <= $3)', [
        user.id,
        new Date(now.getTime() - this.idleMs),
        now,
      ]);
      return this.open(t, user.id, state, now, absolute);
    });
    if (state === 'active') await this.s.db.none('UPDATE users SET last_login_at = $2 WHERE id = $1', [user.id, now]);
    return { ...opened, user };
  }

  /**
   * Checks the signed-in person's password before a change to their own account, counted as a
   * sign-in attempt for their email (a stolen session cannot guess it faster than a sign-in form).
   */
  async checkOwnPassword(user: UserRow, given: string | undefined, action: 'changeOwnPasswordFailed' | 'startTotpEnrolmentFailed'): Promise<void> {
    await this.throttle.attempt([`login:${user.email}`], async () => {
      if (given === undefined || !(await verify(user.password_hash, given))) {
        if (given !== undefined) await this.s.audit.attempted({ action, user, bySessionOf: true, attempt: { reason: 'wrong_password' } });
        throw validationError([{ field: 'current_password', message: given === undefined ? 'is required' : 'is not your current password' }]);
      }
    });
  }

  /** A new password: every other session of the person ends, this one goes on under a new id. */
  async changePassword(actor: SessionActor, current: string, next: string): Promise<{ id: string; row: SessionRow }> {
    await this.checkOwnPassword(actor.user, current, 'changeOwnPasswordFailed');
    const passwordHash = await hashSecret(next);
    return this.s.db.tx(async (t) => {
      await t.none('UPDATE users SET password_hash = $2 WHERE id = $1', [actor.user.id, passwordHash]);
      await this.endOthers(t, actor);
      return this.reopen(t, actor, 'active');
    });
  }

  /** Ends every session of the person but the caller's. */
  async endOthers(t: Tx, actor: SessionActor): Promise<void> {
    await t.none('DELETE FROM user_sessions WHERE user_id = $1 AND id_hash <> $2', [actor.user.id, actor.session.id_hash]);
  }

  private async open(t: Tx, userId: number, state: SessionState, createdAt: Date, absolute: Date): Promise<{ id: string; row: SessionRow }> {
    const id = randomBytes(ID_BYTES).toString('base64url');
    const row = await t.one<SessionRow>(
      `INSERT INTO user_sessions (id_hash, user_id, state, csrf_token, created_at, last_seen_at, absolute_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [hashId(id), userId, state, randomBytes(ID_BYTES).toString('base64url'), createdAt, this.s.now(), absolute],
    );
    return { id, row };
  }

  /** The session behind a cookie, its idle expiry moved; null when there is none or it has ended. */
  async authenticate(cookie: string | undefined): Promise<SessionActor | null> {
    if (!cookie || !/^[A-Za-z0-9_-]{43}$/.test(cookie)) return null;
    const now = this.s.now();
    const found = await this.s.db.oneOrNone<SessionRow & { u: UserRow }>(
      `SELECT s.*, to_jsonb(u) AS u FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = $1`,
      [hashId(cookie)],
    );
    if (!found) return null;
    const { u, ...session } = found;
    const idleEnd = new Date(session.last_seen_at.getTime() + this.idleMs);
    if (u.disabled_at || now >= idleEnd || now >= session.absolute_expires_at) {
      await this.s.db.none('DELETE FROM user_sessions WHERE id_hash = $1', [session.id_hash]);
      return null;
    }
    await this.s.db.none('UPDATE user_sessions SET last_seen_at = $2 WHERE id_hash = $1', [session.id_hash, now]);
    return { type: 'user', user: reviveUser(u), session: { ...session, last_seen_at: now } };
  }

  /** A new id (and CSRF token) for the same sign-in, in a new state: after the second factor. */
  async rotate(actor: SessionActor, state: SessionState): Promise<{ id: string; row: SessionRow }> {
    return this.s.db.tx((t) => this.reopen(t, actor, state));
  }

  /** The caller's session under a new id, in `t`. */
  async reopen(t: Tx, actor: SessionActor, state: SessionState): Promise<{ id: string; row: SessionRow }> {
    await t.none('DELETE FROM user_sessions WHERE id_hash = $1', [actor.session.id_hash]);
    if (state === 'active') await t.none('UPDATE users SET last_login_at = $2 WHERE id = $1', [actor.user.id, this.s.now()]);
    return this.open(t, actor.user.id, state, actor.session.created_at, actor.session.absolute_expires_at);
  }

  async logout(actor: SessionActor): Promise<void> {
    await this.s.db.none('DELETE FROM user_sessions WHERE id_hash = $1', [actor.session.id_hash]);
  }

  async endAll(t: Tx, userId: number): Promise<void> {
    await t.none('DELETE FROM user_sessions WHERE user_id = $1', [userId]);
  }

  csrfMatches(actor: SessionActor, given: string | undefined): boolean {
    const a = Buffer.from(given ?? '');
    const b = Buffer.from(actor.session.csrf_token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** The session as the API shows it, with how many of the person's recovery codes are left (null without 2FA). */
  async view(row: SessionRow, user: UserRow) {
    const left = user.totp_enabled_at
      ? (await this.s.db.one<{ n: number }>('SELECT count(*)::int AS n FROM totp_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [user.id])).n
      : null;
    return {
      state: row.state,
      csrf_token: row.csrf_token,
      idle_expires_at: apiTime(new Date(row.last_seen_at.getTime() + this.idleMs)),
      absolute_expires_at: apiTime(row.absolute_expires_at),
      user: userRecord(user),
      recovery_codes_left: left,
    };
  }

  /** Set-Cookie for a session id (or to clear the cookie): Secure unless served over http on localhost. */
  cookie(id: string | null): string {
    const base = new URL(this.s.config.publicBaseUrl);
    const local = base.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname);
    const parts = [`${SESSION_COOKIE}=${id ?? ''}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
    if (!local) parts.push('Secure');
    if (id === null) parts.push('Max-Age=0');
    return parts.join('; ');
  }
}

/** to_jsonb turns timestamps into strings; the row type has Dates. */
function reviveUser(u: UserRow): UserRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    ...u,
    totp_enabled_at: date(u.totp_enabled_at),
    disabled_at: date(u.disabled_at),
    last_login_at: date(u.last_login_at),
    created_at: date(u.created_at) as Date,
    owner_since: date(u.owner_since),
    totp_last_step: u.totp_last_step === null ? null : Number(u.totp_last_step),
  };
}
