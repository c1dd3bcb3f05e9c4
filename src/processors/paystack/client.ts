// Paystack transport: HTTPS calls with a bearer secret key and a timeout; every answer goes through the
// pure readers of transformers.ts. Nothing here logs or keeps a request body (a charge carries card data).
import type { CardDetails } from '../../domain/card';
import { chargeRequest, initializeRequest, readCharge, readInitialize, readVerify } from './transformers';
import type { ChargeAnswer, InitializeAnswer, PaystackPayment, VerifyAnswer } from './transformers';

/** The host in PaystackOSS/openapi's `servers`; test and live keys use the same host. */
export const PAYSTACK_DEFAULT_BASE_URL = 'https://api.paystack.co';

export interface PaystackCredentials {
  /** sk_test_... or sk_live_...: authenticates our calls and keys the webhook signature */
  secretKey: string;
}

export interface PaystackSettings extends PaystackCredentials {
  baseUrl: string;
  timeoutMs: number;
}

/** No answer at all (refused connection, timeout, reset): the processor may or may not have acted. */
export type Unreachable = { kind: 'unreachable'; detail: string };

/** The largest answer read from Paystack; anything bigger is not a Paystack answer. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** One JSON call with a deadline; redirects are not followed. Shared with the BTCPay client. */
export async function callJson(
  method: 'GET' | 'POST',
  url: string,
  authorization: string,
  timeoutMs: number,
  body?: unknown,
): Promise<{ status: number; json: unknown } | Unreachable> {
  const path = new URL(url).pathname;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: { authorization, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (e) {
    // The error names the cause (timeout, refused); it never carries the request body.
    return { kind: 'unreachable', detail: `${method} ${path}: ${(e as Error).name} ${(e as { cause?: { code?: string } }).cause?.code ?? ''}`.trim() };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    return { kind: 'unreachable', detail: `${method} ${path}: answer cut off (${(e as Error).name})` };
  }
  if (text.length > MAX_ANSWER_BYTES) return { status: res.status, json: null };
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: null };
  }
}

function call(s: PaystackSettings, method: 'GET' | 'POST', path: string, body?: unknown) {
  return callJson(method, s.baseUrl.replace(/\/+$/, '') + path, `Bearer ${s.secretKey}`, s.timeoutMs, body);
}

export class PaystackClient {
  constructor(private readonly s: PaystackSettings) {}

  async initialize(p: PaystackPayment): Promise<InitializeAnswer | Unreachable> {
    const r = await call(this.s, 'POST', '/transaction/initialize', initializeRequest(p));
    return 'kind' in r ? r : readInitialize(r.status, r.json);
  }

  async verify(reference: string): Promise<VerifyAnswer | Unreachable> {
    const r = await call(this.s, 'GET', `/transaction/verify/${encodeURIComponent(reference)}`);
    return 'kind' in r ? r : readVerify(r.status, r.json);
  }

  /** One attempt, never repeated by us: card data is not kept to send again. */
  async charge(p: PaystackPayment, card: CardDetails): Promise<ChargeAnswer | Unreachable> {
    const r = await call(this.s, 'POST', '/charge', chargeRequest(p, card));
    return 'kind' in r ? r : readCharge(r.status, r.json);
  }
}
