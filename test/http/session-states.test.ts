// Proves which operator operations a dashboard session may call in each state, for every operation of admin.yaml (read from the spec, so an operation added later is covered): a session waiting for its code may only give it, read itself or sign out; one that must enrol may only enrol, read itself or sign out; an active one reaches every operation.
import type { OpenAPIBackend } from 'openapi-backend';
import { specApis } from '../helpers/spec';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, SessionClient, signedIn } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let admin: OpenAPIBackend;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  admin = (await specApis()).admin;
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

/**
 * What the session states promise (the Session schema's `state`): before it is `active`, a session
 * may call only these. Everything else answers 401 without looking at the request.
 */
const BEFORE_ACTIVE: Record<string, string[]> = {
  totp_required: ['getSession', 'logout', 'verifyTotp'],
  totp_enrolment_required: ['getSession', 'logout', 'startTotpEnrolment', 'confirmTotpEnrolment'],
};

const isOpen = (op: { security?: unknown[] }) => Array.isArray(op.security) && op.security.length === 0;

/**
 * Every request carries a query parameter no operation knows: an operation the session may call
 * answers 400 for it (the request is looked at, and nothing changes), one it may not call answers 401
 * before the request is looked at.
 */
const UNKNOWN_QUERY = 'not_a_parameter=1';
// the 400 for an unknown parameter is not listed by operations that take no parameters, so these probes
// skip the check of the answer against the spec (every other test of these operations does it)
const PROBE = { unchecked: true } as const;

async function sessionIn(state: string): Promise<SessionClient | null> {
  if (state === 'no session') return null;
  const op = await createUser(svc, { role: 'operator_admin', totp: state !== 'totp_enrolment_required' });
  if (state === 'active') return signedIn(svc, op, clock);
  const client = new SessionClient(svc);
  const login = await client.login(op.email, op.password);
  expect(login.body.data.state).toBe(state);
  return client;
}

describe.each(['active', 'totp_required', 'totp_enrolment_required', 'no session'])('a session that is %s', (state) => {
  it('gets, from every operation of admin.yaml, 401 unless its state lets it call it', async () => {
    const client = (await sessionIn(state)) ?? new SessionClient(svc);
    const seen: [string, number][] = [];
    const expected: [string, number][] = [];
    for (const op of admin.getOperations()) {
      const id = op.operationId as string;
      const reaches = isOpen(op) || state === 'active' || (BEFORE_ACTIVE[state] ?? []).includes(id);
      const urlPath = op.path.replace(/\{[^}]+\}/g, '1');
      const res = await client.request(op.method.toUpperCase(), `${urlPath}?${UNKNOWN_QUERY}`, op.method === 'get' ? undefined : {}, PROBE);
      seen.push([id, res.status]);
      expected.push([id, reaches ? 400 : 401]);
      if (!reaches && state !== 'no session') expect([id, res.body.message]).toEqual([id, 'Finish signing in first: two-factor authentication is pending']);
    }
    expect(seen).toEqual(expected);
    expect(seen.length).toBeGreaterThan(40);
    if (state !== 'no session') expect((await client.get('/v1/admin/session')).body.data.state).toBe(state); // nothing moved it
  }, 120_000);
});
