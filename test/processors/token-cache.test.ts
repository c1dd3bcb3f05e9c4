// The token cache: one token per MID and credentials, shared by concurrent callers, replaced a margin before it expires, dropped and fetched once more when the vendor refuses it.
import type { VendorAnswer } from '../../src/processors/transport';
import { TokenCache, tokenFetchOf } from '../../src/processors/token-cache';
import type { TokenFetch } from '../../src/processors/token-cache';

const ok = (status: number): VendorAnswer => ({ kind: 'answer', status, text: '', json: undefined });

describe('TokenCache', () => {
  let now = 0;
  let fetched = 0;
  const cache = new TokenCache(60_000, () => now);
  const fetchToken = async (): Promise<TokenFetch> => {
    fetched += 1;
    return { kind: 'token', token: `t${fetched}`, expiresInSeconds: 3600 };
  };
  const ctx = { midId: 1, credentials: { api_key: 'a' } };

  beforeEach(() => {
    now = 0;
    fetched = 0;
    cache.drop(ctx);
  });

  it('fetches once for concurrent callers and reuses the token until the margin before expiry', async () => {
    const [a, b] = await Promise.all([cache.token(ctx, fetchToken), cache.token(ctx, fetchToken)]);
    expect([a, b].map((t) => t.kind === 'token' && t.token)).toEqual(['t1', 't1']);
    now = 3_539_000;
    expect(await cache.token(ctx, fetchToken)).toMatchObject({ token: 't1' });
    now = 3_541_000;
    expect(await cache.token(ctx, fetchToken)).toMatchObject({ token: 't2' });
  });

  it('keeps tokens apart per MID and per credentials', async () => {
    await cache.token(ctx, fetchToken);
    await cache.token({ ...ctx, midId: 2 }, fetchToken);
    await cache.token({ ...ctx, credentials: { api_key: 'b' } }, fetchToken);
    expect(fetched).toBe(3);
  });

  it('drops a refused token and calls once more with a fresh one, but not twice', async () => {
    const used: string[] = [];
    const answer = await cache.authorized(ctx, fetchToken, async (t) => {
      used.push(t);
      return ok(used.length === 1 ? 401 : 202);
    });
    expect(answer).toMatchObject({ status: 202 });
    expect(used).toEqual(['t1', 't2']);
    const always401 = await cache.authorized(ctx, fetchToken, async () => ok(401));
    expect(always401).toMatchObject({ status: 401 });
    expect(fetched).toBe(3);
  });

  it('returns the token endpoint answer when no token can be had', async () => {
    const refused = await cache.authorized(ctx, async () => ({ kind: 'failed', answer: ok(401) }), async () => ok(200));
    expect(refused).toMatchObject({ status: 401 });
  });
});

describe('tokenFetchOf', () => {
  const json = (status: number, body: unknown): VendorAnswer => ({ kind: 'answer', status, text: JSON.stringify(body), json: body });

  it("reads the token and its lifetime, a number (MTN) or a string (Daraja's \"3599\")", () => {
    expect(tokenFetchOf(json(200, { access_token: 'eyJ0', token_type: 'access_token', expires_in: 3600 }))).toEqual({ kind: 'token', token: 'eyJ0', expiresInSeconds: 3600 });
    expect(tokenFetchOf(json(200, { access_token: 'abc', expires_in: '3599' }))).toEqual({ kind: 'token', token: 'abc', expiresInSeconds: 3599 });
  });

  it('anything else is the failed answer itself', () => {
    for (const a of [
      json(401, { error: 'login_failed' }),
      json(400, { resultCode: '999991', resultDesc: 'Invalid client id passed' }),
      json(200, { access_token: '', expires_in: 3600 }),
      json(200, { access_token: 'x' }),
      json(200, { access_token: 'x', expires_in: -1 }),
      { kind: 'no_answer', sent: false, detail: 'connection failed (ECONNREFUSED)' } as VendorAnswer,
    ]) {
      expect(tokenFetchOf(a)).toEqual({ kind: 'failed', answer: a });
    }
  });
});
