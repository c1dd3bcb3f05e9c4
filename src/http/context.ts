import type { Request } from 'express';
import type { Context } from 'openapi-backend';
import type { Services } from '../wiring';
import type { Actor } from '../people/sessions';
import type { Principal } from '../merchants/access-tokens';
import type { Reply } from './envelope';

export interface RequestContext {
  services: Services;
  requestId: string;
  req: Request;
  /** set for merchant operations that need a JWT; null for the token endpoint and operator calls */
  principal: Principal | null;
  /** operator API: the operator key or the signed-in person; null for operations open to anyone */
  actor: Actor | null;
}

export type Handler = (c: Context, ctx: RequestContext) => Promise<Reply>;

/** The merchant behind the call; the security handler guarantees it for secured operations. */
export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw new Error('secured operation reached without a principal');
  return ctx.principal;
}

/**
 * The client's address: the TCP peer's, or, when that peer is a proxy named by TRUST_PROXY, the address the
 * proxies recorded in X-Forwarded-For (express's `req.ip`, read right to left up to the first address not
 * trusted). A client that sends X-Forwarded-For (or Forwarded, which is never read) itself, from an address
 * not trusted, is its own peer address. Unknown only for a socket already closed.
 */
export function clientAddress(ctx: RequestContext): string | undefined {
  return ctx.req.ip ?? ctx.req.socket.remoteAddress;
}

/** The caller's name as records keep it (who verified, who asked to go live): a person's email, or the key. */
export function callerName(ctx: RequestContext): string {
  return ctx.actor?.type === 'user' ? ctx.actor.user.email : 'operator key';
}

/** A merchant's own people (a signed-in user of a business), as against an operator or the operator key: they never see the processor side. */
export function merchantUser(ctx: RequestContext): boolean {
  return ctx.actor?.type === 'user' && ctx.actor.user.business_id !== null;
}
