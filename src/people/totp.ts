// Two-factor authentication with TOTP (RFC 6238: SHA-1, 6 digits, 30 s, as every authenticator app
// reads it). otpauth does the RFC arithmetic and the otpauth:// URL; we keep the secret sealed with
// MASTER_KEY, refuse a code's second use, and keep 10 single-use recovery codes as SHA-256 hashes
// (each carries about 52 random bits, so a fast hash is enough, unlike a password).
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { masterKeys, openWithAny, seal } from '../crypto/secretbox';
import { AppError, validationError } from '../errors';
import type { AuditService, AccountAttempt } from './audit';
import type { Base } from '../base';
import type { SessionActor, SessionService } from './sessions';
import { FailureThrottle } from '../merchants/failure-throttle';

const PERIOD_SECONDS = 30;
/** one step either side: a phone clock a little off still works */
const WINDOW_STEPS = 1;
const RECOVERY_CODES = 10;
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

const wrongCode = () => new AppError('UNAUTHORIZED', 'The code is wrong or was already used');
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

function totpOf(secretBase32: string, email: string): TOTP {
  return new TOTP({ issuer: 'PayCollect', label: email, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

function recoveryCode(): string {
  const part = () => Array.from({ length: 5 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${part()}-${part()}`;
}

export class TotpService {
  private readonly throttle: FailureThrottle;

  constructor(private readonly s: Base & { sessions: SessionService; audit: AuditService }) {
    this.throttle = new FailureThrottle(() => s.db, s.now);
  }

  /**
   * A new secret, kept unconfirmed until a code from the app proves it was added. Replacing one in use
   * needs a fully signed-in session, the password and a current code of the authenticator in use (a
   * session left open cannot move the second factor to another phone), and the secret in use keeps
   * working until the new one is confirmed.
   */
  async start(actor: SessionActor, given: { current_password?: string; current_code?: string } = {}) {
    const replacing = replacesInUse(actor);
    if (replacing) {
      const missing = (['current_password', 'current_code'] as const).filter((f) => given[f] === undefined);
      if (missing.length > 0) throw validationError(missing.map((field) => ({ field, message: 'is required' })));
      await this.s.sessions.checkOwnPassword(actor.user, given.current_password, 'startTotpEnrolmentFailed');
      const { id, email, totp_secret_enc } = actor.user;
      await this.checked(actor, 'startTotpEnrolmentFailed', 'wrong_code', () => this.acceptCode(id, totp_secret_enc as string, email, given.current_code as string));
    }
    const secret = new Secret({ size: 20 }).base32;
    const column = replacing ? 'totp_pending_secret_enc' : 'totp_secret_enc';
    await this.s.db.none('UPDATE users SET $2:name = $3 WHERE id = $1', [actor.user.id, column, seal(this.s.config.masterKey, secret)]);
    return { secret, otpauth_url: totpOf(secret, actor.user.email).toString() };
  }

  /**
   * Turns 2FA on (or moves it to the new secret) with a first code; new recovery codes replace the old
   * ones and are returned once; the session gets a new id, and a replacement ends the other sessions.
   */
  async confirm(actor: SessionActor, code: string) {
    const { user } = actor;
    const replacing = replacesInUse(actor);
    const sealed = replacing ? user.totp_pending_secret_enc : user.totp_secret_enc;
    if (!sealed) throw new AppError('INVALID_STATE', 'Start the enrolment first (POST /v1/admin/me/totp)');
    await this.checked(actor, 'confirmTotpEnrolmentFailed', 'wrong_code', () =>
      replacing ? this.acceptNewSecret(user, sealed, code) : this.acceptCode(user.id, sealed, user.email, code),
    );
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    const rotated = await this.s.db.tx(async (t) => {
      await t.none('UPDATE users SET totp_enabled_at = $2 WHERE id = $1', [user.id, this.s.now()]);
      await t.none('DELETE FROM totp_recovery_codes WHERE user_id = $1', [user.id]);
      await t.none('INSERT INTO totp_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])', [user.id, codes.map(sha256)]);
      if (replacing) await this.s.sessions.endOthers(t, actor);
      return this.s.sessions.reopen(t, actor, 'active');
    });
    return { codes, rotated };
  }

  /** The second step of a sign-in: a current code or an unused recovery code. */
  async verify(actor: SessionActor, given: { code?: string; recovery_code?: string }) {
    const { user } = actor;
    if (actor.session.state !== 'totp_required' || !user.totp_secret_enc) {
      throw new AppError('INVALID_STATE', 'This session does not wait for a second factor');
    }
    await this.checked(actor, 'verifyTotpFailed', given.code !== undefined ? 'wrong_code' : 'wrong_recovery_code', () =>
      given.code !== undefined ? this.acceptCode(user.id, user.totp_secret_enc as string, user.email, given.code) : this.useRecoveryCode(user.id, given.recovery_code ?? ''),
    );
    return this.s.sessions.rotate(actor, 'active');
  }

  /**
   * A fresh second factor for one change that moves money (a disbursement asked for in the dashboard,
   * where it stands in for the API token's secret, or an owner's approval of one): the signed-in person's current code, accepted once as
   * at sign-in (a step already used is refused), under a throttle of its own (ten wrong codes a minute),
   * apart from the sign-in codes' so that wrong codes here never lock the person out of signing in, and a
   * wrong one recorded as `action` with `what` was asked. Without a confirmed authenticator (one whose
   * enrolment was only started does not count): FORBIDDEN. Inside a change that later fails, the code's
   * step is given back with everything else.
   */
  async confirmFresh(actor: SessionActor, code: string, action: 'disbursementCodeRefused' | 'approvalCodeRefused', what: Record<string, string | null>): Promise<void> {
    const { id, email, totp_secret_enc: sealed, totp_enabled_at: enabled } = actor.user;
    if (!enabled || !sealed) {
      throw new AppError('FORBIDDEN', 'Set up an authenticator app in Account first; money out from the dashboard (a disbursement, an approval) needs its code');
    }
    await this.checked(actor, action, 'wrong_code', () => this.acceptCode(id, sealed, email, code), what, 'money');
  }

  /**
   * A code checked under the person's throttle (`budget`: the sign-in's, or the one of codes that move
   * money); a wrong one is recorded in the audit log (the code is not).
   */
  private async checked(
    actor: SessionActor,
    action: AccountAttempt['action'],
    reason: string,
    check: () => Promise<void>,
    what: Record<string, string | null> = {},
    budget: 'sign-in' | 'money' = 'sign-in',
  ): Promise<void> {
    await this.throttle.attempt([`${budget === 'money' ? 'totp-money' : 'totp'}:${actor.user.id}`], async () => {
      try {
        await check();
      } catch (e) {
        if (e instanceof AppError && e.code === 'UNAUTHORIZED') {
          await this.s.audit.attempted({ action, user: actor.user, bySessionOf: true, attempt: { ...what, reason, session_state: actor.session.state } });
        }
        throw e;
      }
    });
  }

  /** The time step of a right code of `sealed`; UNAUTHORIZED otherwise. */
  private stepOf(sealed: string, email: string, code: string): number {
    const now = this.s.now().getTime();
    // during a MASTER_KEY rotation a secret may still be sealed with the previous key
    const delta = totpOf(openWithAny(masterKeys(this.s.config), sealed).plaintext, email).validate({ token: code, timestamp: now, window: WINDOW_STEPS });
    if (delta === null) throw wrongCode();
    return Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  }

  /** A right code is accepted once: its time step must be later than the last one accepted. */
  private async acceptCode(userId: number, sealed: string, email: string, code: string): Promise<void> {
    const step = this.stepOf(sealed, email, code);
    const taken = await this.s.db.result('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)', [userId, step]);
    if (taken.rowCount !== 1) throw wrongCode();
  }

  /** The pending secret replaces the one in use, once, and its code's step is the last one accepted. */
  private async acceptNewSecret(user: { id: number; email: string }, sealed: string, code: string): Promise<void> {
    const step = this.stepOf(sealed, user.email, code);
    const moved = await this.s.db.result(
      'UPDATE users SET totp_secret_enc = $2, totp_pending_secret_enc = NULL, totp_last_step = $3 WHERE id = $1 AND totp_pending_secret_enc = $2',
      [user.id, sealed, step],
    );
    if (moved.rowCount !== 1) throw wrongCode();
  }

  private async useRecoveryCode(userId: number, code: string): Promise<void> {
    const used = await this.s.db.result(
      'UPDATE totp_recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL',
      [userId, sha256(code), this.s.now()],
    );
    if (used.rowCount !== 1) throw new AppError('UNAUTHORIZED', 'The recovery code is wrong or was already used');
  }
}

/**
 * Whether `actor` enrols a first authenticator (false) or replaces the one in use (true); refused for a
 * session that has not passed its second factor, whatever route it came by: enrolment is for a session
 * that must enrol (or a fully signed-in one adding a first authenticator), replacement for a fully
 * signed-in one only.
 */
function replacesInUse(actor: SessionActor): boolean {
  const replacing = actor.user.totp_enabled_at !== null;
  const allowed = replacing ? actor.session.state === 'active' : actor.session.state !== 'totp_required';
  if (!allowed) throw new AppError('UNAUTHORIZED', 'Finish signing in first: two-factor authentication is pending');
  return replacing;
}

/** The current code of a secret (tests and the CLI's sign-in helper). */
export function currentCode(secretBase32: string, at: Date): string {
  return totpOf(secretBase32, 'x').generate({ timestamp: at.getTime() });
}
