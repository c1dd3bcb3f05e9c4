// The typed client of the operator document (admin.yaml), which the dashboard's people use through their
// session: its paths and schemas come from generated/, so a contract change that breaks a page is a
// compile error here. The session cookie goes along by itself; every change carries the CSRF token.
import createClient from 'openapi-fetch';
import type { Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/admin-api';
import { ERROR_CATALOG } from '../../src/errors';
import { csrfRefused, csrfToken, sessionEnded } from './session';

export type Admin = components['schemas'];
export type FieldError = Admin['FieldError'];

/** An API refusal, in the API's words, with the field errors of a VALIDATION_ERROR. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldError[] = [],
  ) {
    super(message);
  }
}

const UNREACHABLE = 'PayCollect did not answer. Check that the service is running and your network is up, then try again.';
/** Where a 401 means "wrong password or code", not "your session ended" (a disbursement and its approval ask for a fresh code). */
const SIGN_IN_STEPS = new Set(['/v1/admin/session', '/v1/admin/session/totp', '/v1/admin/me/totp/confirm', '/v1/admin/disbursements']);
const APPROVAL = /^\/v1\/admin\/disbursements\/[^/]+\/approve$/;

const session: Middleware = {
  onRequest({ request }) {
    request.headers.set('Accept', 'application/json');
    const token = csrfToken();
    if (token && request.method !== 'GET') request.headers.set('X-CSRF-Token', token);
    return request;
  },
  async onResponse({ request, response }) {
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !((SIGN_IN_STEPS.has(path) || APPROVAL.test(path)) && request.method === 'POST')) {
      sessionEnded('Your session has ended (after 30 minutes without activity, or 12 hours after signing in). Sign in again to continue.');
    }
    // A stale CSRF token (a new session id was issued in another tab): fetch the current one for the retry.
    if (response.status === 403 && ((await response.clone().json()) as { code?: string }).code === 'CSRF_FAILED') csrfRefused();
    return response;
  },
};

export const admin = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
admin.use(session);

/**
 * The role table's refusal: FORBIDDEN with the catalog's own message, which no other refusal uses (those
 * say what to do, e.g. set up an authenticator first, or that another owner must decide). Only this one is
 * something an administrator of the account can change, by giving another role. (The page adds the full stop.)
 */
const roleRefusal = (e: Partial<Admin['Error']>) => e.code === 'FORBIDDEN' && e.message === ERROR_CATALOG.FORBIDDEN.message;

function errorOf(response: Response, body: unknown): ApiError {
  const e = body as Partial<Admin['Error']> | undefined;
  if (e && typeof e.code === 'string' && typeof e.message === 'string') {
    const fields = Array.isArray(e.data) ? e.data : [];
    // each hint a sentence after the API's message, without its own full stop: the page ends the whole with one
    const hint =
      e.code === 'RATE_LIMITED'
        ? `. Wait ${response.headers.get('Retry-After') ?? 'a few'} seconds, then try again`
        : e.code === 'CSRF_FAILED'
          ? '. Your page has been brought up to date: try again'
          : roleRefusal(e)
            ? '. Ask an administrator of your account if you need this'
            : '';
    return new ApiError(response.status, e.code, e.message + hint, fields);
  }
  // the page ends it with a full stop, as it does the API's messages
  return new ApiError(response.status, 'INTERNAL_ERROR', `PayCollect answered HTTP ${response.status}. Try again; if it persists, check the service log`);
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function settle<T>(call: Promise<Answer<T>>): Promise<Answer<T>> {
  try {
    return await call;
  } catch {
    throw new ApiError(0, 'UNREACHABLE', UNREACHABLE);
  }
}

/** The success body of a call, or an ApiError with the API's own message and field errors. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const answer = await settle(call);
  if (answer.error !== undefined || answer.data === undefined) throw errorOf(answer.response, answer.error);
  return answer.data;
}

/** A page of a list: its items, how many there are in all, and the cursor of the page after it. */
export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
}

export async function unwrapPage<T>(call: Promise<Answer<{ data: T[]; paging: Admin['Paging'] }>>): Promise<Page<T>> {
  const body = await unwrap(call);
  return { items: body.data, total: body.paging.total, nextCursor: body.paging.next_cursor };
}
