// Access-token handling: one token at a time, fetched on first use, renewed a little before it
// expires (never by two calls at once), and dropped when the API answers 401 with it.

export interface AccessToken {
  /** the whole Authorization header value, "JWT <jwt>" */
  token: string;
  /** when it stops working, in seconds since the epoch */
  expires: number;
}

export class TokenCache {
  private current: { token: AccessToken; renewAtMs: number } | null = null;
  private pending: Promise<AccessToken> | null = null;

  constructor(
    private readonly fetchToken: () => Promise<AccessToken>,
    private readonly marginMs: number,
    private readonly now: () => number,
    initial?: AccessToken,
  ) {
    if (initial) this.keep(initial);
  }

  /** A token that is good for a while yet, fetching a new one when needed. */
  get(): Promise<AccessToken> {
    if (this.current && this.now() < this.current.renewAtMs) return Promise.resolve(this.current.token);
    return this.renew();
  }

  /** The API refused `token`: the next get() fetches another (unless someone already did). */
  refused(token: AccessToken): void {
    if (this.current?.token === token) this.current = null;
  }

  private renew(): Promise<AccessToken> {
    this.pending ??= this.fetchToken()
      .then((token) => this.keep(token))
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  /** Renews `marginMs` before expiry, or half way through a lifetime shorter than twice the margin. */
  private keep(token: AccessToken): AccessToken {
    const now = this.now();
    const lifetimeMs = token.expires * 1000 - now;
    this.current = { token, renewAtMs: now + Math.max(0, lifetimeMs - Math.min(this.marginMs, lifetimeMs / 2)) };
    return token;
  }
}
