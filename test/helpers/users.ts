// Dashboard people for tests: users made directly in the database (with a known password and, when
// asked, a known TOTP secret), and a browser-like client that keeps the session cookie and sends the
// CSRF header, every response checked against the spec.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { seal } from '../../src/crypto/secretbox';
import type { Role } from '../../src/domain/roles';
import { hashSecret } from '../../src/merchants/access-tokens';
import { currentCode } from '../../src/people/totp';
import { eventually } from './fixtures';
import { Client } from './service';
import type { ApiResponse, RequestOptions, TestService } from './service';

export const PASSWORD = 'correct horse battery staple';
/** a fixed base32 secret, so a test can compute the authenticator's code */
export const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

let seq = 0;
let passwordHash: Promise<string> | null = null;

export interface TestUser {
  id: number;
  email: string;
  password: string;
  role: Role;
  business_id: number | null;
}

/**
 * A user made in the database. An owner counts as one for 30 days already (past any waiting period before
 * approving), unless `fresh`: then they became one at the service's current time, as a person just invited.
 */
export async function createUser(
  svc: TestService,
  o: { role: Role; business_id?: number | null; email?: string; password?: string; totp?: boolean; fresh?: boolean },
): Promise<TestUser> {
  seq += 1;
  const email = o.email ?? `${o.role.replace('_', '.')}.${seq}@people.example`;
  const password = o.password ?? PASSWORD;
  // argon2id is slow on purpose: the common test password is hashed once per file
  passwordHash ??= hashSecret(PASSWORD);
  const now = svc.services.now();
  const ownerSince = o.role !== 'merchant_owner' ? null : o.fresh ? now : new Date(now.getTime() - 30 * 86_400_000);
  const row = await svc.services.db.one<{ id: number }>(
    'INSERT INTO users (email, password_hash, role, business_id, created_at, owner_since) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
    [email.toLowerCase(), password === PASSWORD ? await passwordHash : await hashSecret(password), o.role, o.business_id ?? null, ownerSince ?? now, ownerSince],
  );
  if (o.totp) {
    await svc.services.db.none('UPDATE users SET totp_secret_enc = $2, totp_enabled_at = now() WHERE id = $1', [
      row.id,
      seal(svc.services.config.masterKey, TOTP_SECRET),
    ]);
  }
  return { id: row.id, email, password, role: o.role, business_id: o.business_id ?? null };
}

/** The code an authenticator app shows for `secret` at the service's current time (optionally steps later). */
export function totpCode(svc: TestService, secret = TOTP_SECRET, stepsLater = 0): string {
  return currentCode(secret, new Date(svc.services.now().getTime() + stepsLater * 30_000));
}

export const cookieOf = (res: ApiResponse): string | null => {
  const set = res.headers.get('set-cookie');
  const m = set ? /pc_session=([^;]*)/.exec(set) : null;
  return m ? m[1] : null;
};

/** A browser's view of the dashboard API: the session cookie and the CSRF token it was given. */
export class SessionClient {
  cookie: string | null = null;
  csrf: string | null = null;
  private readonly http: Client;

  constructor(readonly svc: TestService) {
    this.http = new Client(svc.url, () => undefined);
  }

  async request<T = any>(method: string, path: string, body?: unknown, o: RequestOptions & { csrf?: boolean } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (this.cookie) headers.cookie = `pc_session=${this.cookie}`;
    if (this.csrf && o.csrf !== false && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    const res = await this.http.request<T>(method, path, body, { ...o, headers });
    this.remember(res);
    return res;
  }

  /** Keeps what the server set, as a browser would. */
  remember(res: ApiResponse): void {
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = cookieOf(res) || null;
    const data = (res.body as { data?: { csrf_token?: string; session?: { csrf_token?: string } } })?.data;
    const csrf = data?.csrf_token ?? data?.session?.csrf_token;
    if (res.status === 200 && csrf) this.csrf = csrf;
  }

  get<T = any>(p: string, o?: RequestOptions) {
    return this.request<T>('GET', p, undefined, o);
  }
  post<T = any>(p: string, body?: unknown, o?: RequestOptions & { csrf?: boolean }) {
    return this.request<T>('POST', p, body, o);
  }
  patch<T = any>(p: string, body?: unknown, o?: RequestOptions & { csrf?: boolean }) {
    return this.request<T>('PATCH', p, body, o);
  }
  delete<T = any>(p: string, o?: RequestOptions & { csrf?: boolean }) {
    return this.request<T>('DELETE', p, undefined, o);
  }

  async login(email: string, password: string): Promise<ApiResponse> {
    return this.post('/v1/admin/session', { email, password });
  }
}

/**
 * A signed-in, active session of `user`, passing the second factor when the user has one: a code is
 * accepted once, so the clock moves to the next 30-second step first.
 */
export async function signedIn(svc: TestService, user: TestUser, clock?: Clock): Promise<SessionClient> {
  const client = new SessionClient(svc);
  const res = await client.login(user.email, user.password);
  if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
  if (res.body.data.state === 'totp_required') {
    if (!clock) throw new Error('signedIn: a user with two-factor authentication needs the test clock');
    clock.advance(30_000);
    const second = await client.post('/v1/admin/session/totp', { code: totpCode(svc) });
    if (second.status !== 200) throw new Error(`verifyTotp: ${second.status} ${second.text}`);
  }
  if (res.body.data.state === 'totp_enrolment_required') throw new Error('signedIn: give operators a TOTP secret (totp: true)');
  return client;
}

/** A service clock a test moves by hand (session timeouts, one TOTP code per 30-second step). */
export class Clock {
  private offsetMs = 0;
  readonly now = () => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** The text of a message: quoted-printable soft breaks and escapes undone. */
export function readable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The token of the dashboard link (`/dashboard/<page>?token=...`) in a message sent to `to`. */
export function tokenIn(message: string, page: 'reset-password' | 'accept-invitation'): string | undefined {
  return new RegExp(`/dashboard/${page}\\?token=([A-Za-z0-9_-]+)`).exec(readable(message))?.[1];
}

/** Waits for the .eml file of the outbox (no SMTP_URL) addressed to `to` whose link goes to `page`, and returns its token. */
export async function tokenFromOutbox(svc: TestService, to: string, page: 'reset-password' | 'accept-invitation', skip: string[] = []): Promise<string> {
  const dir = path.join(svc.config.dataDir, 'mail');
  return eventually(async () => {
    if (!existsSync(dir)) return undefined;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.eml'))) {
      const text = readable(readFileSync(path.join(dir, f), 'utf8'));
      const token = tokenIn(text, page);
      if (token && text.includes(`To: ${to}`) && !skip.includes(token)) return token;
    }
    return undefined;
  }, 20_000, `an email to ${to} with a ${page} link`);
}
