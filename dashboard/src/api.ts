// One typed client per OpenAPI document: the paths and schemas come from generated/, so a contract
// change that breaks a page is a compile error here. Credentials and error handling live here only.
import createClient from 'openapi-fetch';
import type { Middleware } from 'openapi-fetch';
import type { components as AdminComponents, paths as AdminPaths } from '../../generated/admin-api';
import type { components as MerchantComponents, paths as MerchantPaths } from '../../generated/merchant-api';
import { credential, signOut } from './session';

export type Admin = AdminComponents['schemas'];
export type Merchant = MerchantComponents['schemas'];
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

const authorize: Middleware = {
  onRequest({ request }) {
    const c = credential();
    if (c) request.headers.set('Authorization', c.kind === 'operator' ? `Bearer ${c.secret}` : c.secret);
    request.headers.set('Accept', 'application/json');
    return request;
  },
  onResponse({ response }) {
    // A refused credential (expired token, rotated key) ends the sign-in; the sign-in page says why.
    if (response.status === 401 && credential()) signOut('Your sign-in has ended or was refused. Sign in again to continue.');
    return response;
  },
};

export const admin = createClient<AdminPaths>({ baseUrl: '' });
export const merchant = createClient<MerchantPaths>({ baseUrl: '' });
admin.use(authorize);
merchant.use(authorize);

function errorOf(response: Response, body: unknown): ApiError {
  const e = body as Partial<Admin['Error']> | undefined;
  if (e && typeof e.code === 'string' && typeof e.message === 'string') {
    const fields = Array.isArray(e.data) ? e.data : [];
    const hint = e.code === 'RATE_LIMITED' ? ` Wait ${response.headers.get('Retry-After') ?? 'a few'} seconds, then try again.` : '';
    return new ApiError(response.status, e.code, e.message + hint, fields);
  }
  return new ApiError(response.status, 'INTERNAL_ERROR', `PayCollect answered HTTP ${response.status}. Try again; if it persists, check the service log.`);
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The success body of a call, or an ApiError with the API's own message and field errors. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch {
    throw new ApiError(0, 'UNREACHABLE', UNREACHABLE);
  }
  if (answer.error !== undefined || answer.data === undefined) throw errorOf(answer.response, answer.error);
  return answer.data;
}

/** A page of a list: its items and the totals from the X-PH-* headers. */
export interface Page<T> {
  items: T[];
  total: number;
  pages: number;
}

export async function unwrapPage<T>(call: Promise<Answer<{ data: T[] }>>): Promise<Page<T>> {
  const answer = await call.catch(() => {
    throw new ApiError(0, 'UNREACHABLE', UNREACHABLE);
  });
  const body = await unwrap(Promise.resolve(answer));
  const h = answer.response.headers;
  return { items: body.data, total: Number(h.get('X-PH-Total') ?? body.data.length), pages: Number(h.get('X-PH-TotalPages') ?? 1) };
}
