// Cross-site request forgery guard for the hosted pages' forms: a random cookie (SameSite=Strict,
// HttpOnly) and a hidden field holding its HMAC bound to the collection; a POST needs both to match.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

const COOKIE = 'pc_csrf';

function cookieOf(req: Request): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return v.join('=') || null;
  }
  return null;
}

function mac(secret: string, cookie: string, reference: string): string {
  return createHmac('sha256', secret).update(`csrf:${reference}:${cookie}`).digest('base64url');
}

/** Sets the cookie when absent and returns the value for the form's hidden `csrf` field. */
export function csrfField(req: Request, res: Response, secret: string, reference: string, cookiePath = '/pay'): string {
  let cookie = cookieOf(req);
  if (!cookie || !/^[A-Za-z0-9_-]{20,64}$/.test(cookie)) {
    cookie = randomBytes(24).toString('base64url');
    res.append('Set-Cookie', `${COOKIE}=${cookie}; Path=${cookiePath}; HttpOnly; SameSite=Strict; Max-Age=7200`);
  }
  return mac(secret, cookie, reference);
}

export function csrfValid(req: Request, secret: string, reference: string, field: unknown): boolean {
  const cookie = cookieOf(req);
  if (!cookie || typeof field !== 'string') return false;
  const expected = Buffer.from(mac(secret, cookie, reference));
  const given = Buffer.from(field);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
