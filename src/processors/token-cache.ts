// Vendor access tokens, cached per MID and replaced a margin before they expire (MTN's and Daraja's
// tokens last about an hour). A token the vendor refuses (401) is dropped and fetched once more, so a
// token that expired early costs one extra call, never a failed payment. Kept in memory: each process
// fetches its own, which both vendors allow.
import { createHash } from 'node:crypto';
import type { CallContext } from './types';
import { describeAnswer } from './transport';
import type { VendorAnswer } from './transport';

export type TokenFetch = { kind: 'token'; token: string; expiresInSeconds: number } | { kind: 'failed'; answer: VendorAnswer };

/**
 * An OAuth client-credentials answer: 200 { access_token, expires_in } is a token (expires_in in seconds;
 * MTN sends a number, about 3600, Daraja a string, "3599"); anything else is the failed answer.
 */
export function tokenFetchOf(a: VendorAnswer): TokenFetch {
  const b = a.kind === 'answer' && a.status === 200 ? (a.json as { access_token?: unknown; expires_in?: unknown } | undefined) : undefined;
  const expires = Number(b?.expires_in);
  if (typeof b?.access_token !== 'string' || !b.access_token || !Number.isFinite(expires) || expires <= 0) return { kind: 'failed', answer: a };
  return { kind: 'token', token: b.access_token, expiresInSeconds: expires };
}

/** A credentials check for a vendor whose credentials are proved by being issued a token. */
export async function checkByToken(fetchToken: () => Promise<TokenFetch>, vendor: string): Promise<{ ok: boolean; detail: string }> {
  const t = await fetchToken();
  return t.kind === 'token' ? { ok: true, detail: `${vendor} issued an access token` } : { ok: false, detail: describeAnswer(t.answer) };
}

interface Entry {
  token: string;
  expiresAtMs: number;
}

/** A MID's cache key changes with its credentials, so new credentials never use an old token. */
function keyOf(ctx: CallContext): string {
  const digest = createHash('sha256').update(JSON.stringify(Object.entries(ctx.credentials).sort())).digest('base64url');
  return `${ctx.midId}:${digest}`;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<TokenFetch>>();

  constructor(
    private readonly marginMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** A valid cached token, or a fresh one (concurrent callers share one fetch). */
  async token(ctx: CallContext, fetchToken: () => Promise<TokenFetch>): Promise<TokenFetch> {
    const key = keyOf(ctx);
    const cached = this.entries.get(key);
    if (cached && cached.expiresAtMs - this.marginMs > this.nowMs()) return { kind: 'token', token: cached.token, expiresInSeconds: 0 };
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = fetchToken().then((r) => {
        if (r.kind === 'token') this.entries.set(key, { token: r.token, expiresAtMs: this.nowMs() + r.expiresInSeconds * 1000 });
        return r;
      });
      pending.finally(() => this.inFlight.delete(key)).catch(() => undefined);
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  drop(ctx: CallContext): void {
    this.entries.delete(keyOf(ctx));
  }

  /**
   * call(token) with the MID's token; when the vendor refuses the token (`refused`: 401 unless the
   * vendor says it otherwise) it is dropped and the call made once more with a fresh one. A token
   * that cannot be had is returned as the token endpoint's answer.
   */
  async authorized(
    ctx: CallContext,
    fetchToken: () => Promise<TokenFetch>,
    call: (token: string) => Promise<VendorAnswer>,
    refused: (a: Extract<VendorAnswer, { kind: 'answer' }>) => boolean = (a) => a.status === 401,
  ): Promise<VendorAnswer> {
    for (let attempt = 0; ; attempt++) {
      const t = await this.token(ctx, fetchToken);
      if (t.kind === 'failed') return t.answer;
      const answer = await call(t.token);
      if (answer.kind !== 'answer' || !refused(answer) || attempt > 0) return answer;
      this.drop(ctx);
    }
  }
}
