// API credentials and access tokens (docs/contract/authentication.md): argon2id-hashed secrets, HS256 JWTs
// bound to the deployment and to the API token's generation, so regeneration revokes at once.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import { AppError, validationError } from '../errors';
import type { ConfigCache, TokenState } from './config-cache';
import { FailureThrottle } from './failure-throttle';
import type { SharedRateLimit } from './rate-limit';
import type { Base } from '../base';

/** Who is calling: the API token behind a merchant's access token. */
export interface Principal {
  apiTokenId: number;
  businessId: number;
  /** the API token's generation the access token was issued at (absent for internal callers) */
  generation?: number;
}

/** OWASP's argon2id floor: m=19 MiB, t=2, p=1. */
const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const ISSUER = 'paycollect';
export const MIN_EXPIRES_IN_SECONDS = 60;
export const MAX_EXPIRES_IN_SECONDS = 86_400;

export async function hashSecret(secret: string): Promise<string> {
  return hash(secret, ARGON2);
}

export function newCredentials(appEnv: string): { apiKey: string; apiSecret: string } {
  return {
    apiKey: `pk_${appEnv}_${randomBytes(18).toString('base64url')}`,
    apiSecret: `sk_${appEnv}_${randomBytes(32).toString('base64url')}`,
  };
}

/**
 * Whether `secret` is the one whose hash is `secretHash` (a disbursement call's Secret-Key,
 * docs/contract/disbursements.md); a missing secret never is. A malformed hash is no match.
 */
export async function secretMatches(secretHash: string, secret: string | undefined): Promise<boolean> {
  if (!secret) return false;
  const key = `${secretHash}\0${createHash('sha256').update(secret).digest('base64url')}`;
  const until = verifiedSecrets.get(key);
  if (until !== undefined && until > Date.now()) return true;
  let matches: boolean;
  try {
    matches = await verify(secretHash, secret);
  } catch {
    matches = false;
  }
  if (matches) {
    verifiedSecrets.delete(key);
    if (verifiedSecrets.size >= VERIFIED_SECRETS_MAX) verifiedSecrets.delete(verifiedSecrets.keys().next().value as string);
    verifiedSecrets.set(key, Date.now() + VERIFIED_SECRET_MS);
  }
  return matches;
}

/**
 * Secrets verified lately, by their hash and a SHA-256 of the secret: an argon2id check costs tens of
 * milliseconds of CPU and 19 MiB, which every disbursement call (a poll included) would pay again. Only
 * matches are kept, for a few minutes, oldest dropped first; a regenerated secret has a new hash, so its
 * old value stops matching at once. A wrong secret always pays the whole check.
 */
const verifiedSecrets = new Map<string, number>();
const VERIFIED_SECRETS_MAX = 10_000;
const VERIFIED_SECRET_MS = 5 * 60_000;

// Verifying against this keeps an unknown api_key as slow as a wrong secret.
let decoyHash: Promise<string> | null = null;

interface TokenRow {
  id: number;
  business_id: number;
  secret_hash: string;
  generation: number;
  verified_at: Date | null;
}

/** Access tokens whose signature and claims were checked, kept until they expire (at most this many). */
const MAX_VERIFIED_TOKENS = 10_000;

interface VerifiedClaims {
  sub: string | undefined;
  gen: unknown;
  /** seconds since the epoch */
  exp: number;
}

/** Made only on refusal: an error's stack trace is not free on the hot path. */
const denied = () => new AppError('UNAUTHORIZED', 'A valid access token is required: Authorization: JWT <token>');
/**
 * An authentic access token past its `exp`: the one refusal a client cures by renewing the token and
 * repeating the call, so it alone says so, in the header RFC 6750 gives a refused bearer token. Every
 * other refusal (a forged, revoked or malformed token, a wrong Secret-Key) is the plain 401, which a
 * new token does not cure.
 */
export const EXPIRED_TOKEN_CHALLENGE = 'JWT error="invalid_token", error_description="The access token expired"';
const expired = () => new AppError('UNAUTHORIZED', 'The access token expired; request a new one', null, { 'WWW-Authenticate': EXPIRED_TOKEN_CHALLENGE });

/** A signing secret's public name (`kid`): a digest prefix, so a token names its key without revealing it. */
export function keyId(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url').slice(0, 16);
}

export class AccessTokenService {
  private readonly key: Uint8Array;
  private readonly kid: string;
  /** every accepted verification key by kid: JWT_SECRET and JWT_PREVIOUS_SECRETS (rotation without downtime) */
  private readonly verificationKeys: Map<string, Uint8Array>;
  private readonly verified = new Map<string, VerifiedClaims>();
  private readonly throttle: FailureThrottle;

  constructor(private readonly s: Base & { configCache: ConfigCache; rateLimit: SharedRateLimit }) {
    this.throttle = new FailureThrottle(() => s.db, s.now);
    const encode = (secret: string) => new TextEncoder().encode(secret);
    this.key = encode(s.config.jwtSecret);
    this.kid = keyId(s.config.jwtSecret);
    this.verificationKeys = new Map([s.config.jwtSecret, ...s.config.jwtPreviousSecrets].map((secret) => [keyId(secret), encode(secret)]));
  }

  /** The key a token names; a token without kid (issued before key ids) is checked against JWT_SECRET. */
  private verificationKey(jwt: string): Uint8Array | undefined {
    const { kid } = decodeProtectedHeader(jwt);
    return kid === undefined ? this.key : this.verificationKeys.get(String(kid));
  }

  async issueAccessToken(apiKey: string, secret: string | undefined, expiresInSeconds: number, clientAddress: string) {
    if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < MIN_EXPIRES_IN_SECONDS || expiresInSeconds > MAX_EXPIRES_IN_SECONDS) {
      throw validationError([{ field: 'expires_in', message: `must be between ${MIN_EXPIRES_IN_SECONDS} and ${MAX_EXPIRES_IN_SECONDS}` }]);
    }
    // Counted as a failure before the secret is checked, so parallel guesses cannot all pass; a right
    // secret takes its count back (the sign-in throttle's windows, shared by every process).
    const row = await this.throttle.attempt([`key:${apiKey}`, `addr:${clientAddress}`], async () => {
      const found = await this.s.db.oneOrNone<TokenRow>(
        `SELECT t.id, t.business_id, t.secret_hash, t.generation, b.verified_at
         FROM api_tokens t JOIN businesses b ON b.id = t.business_id WHERE t.api_key = $1`,
        [apiKey],
      );
      decoyHash ??= hashSecret(randomUUID());
      const good = await verify(found ? found.secret_hash : await decoyHash, secret ?? '');
      if (!found || !good || !secret) throw new AppError('UNAUTHORIZED', 'The api_key or the Secret-Key is wrong');
      return found;
    });
    if (this.s.config.appEnv === 'live' && !row.verified_at) {
      throw new AppError('UNAUTHORIZED', 'This business has not been verified for live payments yet');
    }
    const iat = Math.floor(this.s.now().getTime() / 1000);
    const exp = iat + expiresInSeconds;
    const jwt = await new SignJWT({ gen: row.generation })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.kid })
      .setSubject(String(row.id))
      .setAudience(this.s.config.appEnv)
      .setIssuer(ISSUER)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.key);
    return { token: `JWT ${jwt}`, expires: exp };
  }

  /** The security handler: any failure is the same 401, whatever went wrong. */
  async authenticate(authorization: string | undefined): Promise<Principal | AppError> {
    const m = /^JWT ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(authorization ?? '');
    if (!m) return denied();
    const claims = await this.verifiedClaims(m[1]);
    if (claims === 'expired') return expired();
    if (!claims) return denied();
    const { sub, gen } = claims;
    if (!sub || !/^\d+$/.test(sub)) return denied();
    const { token } = await this.s.configCache.token(Number(sub));
    if (!token || !this.accepts(token, gen)) return denied();
    if (!(await this.s.rateLimit.admit(token.id))) {
      return new AppError('RATE_LIMITED', undefined, null, { 'Retry-After': '1' });
    }
    return { apiTokenId: token.id, businessId: token.business_id, generation: token.generation };
  }

  /** Whether an API token's state (from the configuration cache) accepts an access token issued at `generation`. */
  accepts(token: TokenState, generation: unknown): boolean {
    if (token.generation !== generation) return false;
    return this.s.config.appEnv !== 'live' || token.business_verified;
  }

  /**
   * The token's claims once its signature, algorithm, audience, issuer and lifetime are checked; null
   * when any check fails, 'expired' when only its lifetime does (the signature is checked first, so a
   * forged token is never told apart). The signature is checked once per token: a repeat within its
   * lifetime costs a Map lookup and the expiry check, on the service clock like the first. The oldest
   * entry makes room.
   */
  private async verifiedClaims(token: string): Promise<VerifiedClaims | 'expired' | null> {
    const nowS = this.s.now().getTime() / 1000;
    const known = this.verified.get(token);
    if (known) {
      if (known.exp > nowS) return known;
      this.verified.delete(token);
      return 'expired';
    }
    try {
      const key = this.verificationKey(token);
      if (!key) return null;
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        audience: this.s.config.appEnv,
        issuer: ISSUER,
        currentDate: this.s.now(),
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      });
      const claims = { sub: payload.sub, gen: payload.gen, exp: payload.exp! };
      if (this.verified.size >= MAX_VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
      return claims;
    } catch (e) {
      return e instanceof joseErrors.JWTExpired ? 'expired' : null;
    }
  }

  /** The operator API: `Authorization: Bearer <OPERATOR_API_KEY>`, compared in constant time. */
  authenticateOperator(authorization: string | undefined): AppError | null {
    const m = /^Bearer (\S+)$/.exec(authorization ?? '');
    const digest = (v: string) => createHash('sha256').update(v).digest();
    if (m && timingSafeEqual(digest(m[1]), digest(this.s.config.operatorApiKey))) return null;
    return new AppError('UNAUTHORIZED', 'A valid operator key is required: Authorization: Bearer <OPERATOR_API_KEY>');
  }
}
