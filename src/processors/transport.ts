// The transport every connector shares: one HTTP call with a deadline, classified so that a caller
// can tell "the vendor surely did not get it" (nothing connected) from "it may have" (the deadline
// passed or the connection broke after the request went out). Bodies are never logged here.

export interface VendorCall {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  /** a JSON or text body, or a file's bytes (a dispute's evidence PUT to a signed upload URL) */
  body?: string | Uint8Array<ArrayBuffer>;
  timeoutMs: number;
}

export type VendorAnswer =
  /** the vendor answered; json is undefined when the body is empty or not JSON */
  | { kind: 'answer'; status: number; text: string; json: unknown }
  /** no answer; sent = the request may have reached the vendor */
  | { kind: 'no_answer'; sent: boolean; detail: string };

/** Failures that happen before a single byte of the request can have reached the vendor. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** An answer larger than this is not a vendor's JSON: read no further. */
const MAX_ANSWER_BYTES = 256 * 1024;

function errorCode(e: unknown): string {
  const err = e as { name?: string; code?: string | number; cause?: { code?: string; name?: string } };
  // AbortSignal.timeout() rejects with a DOMException whose numeric legacy code (23) says nothing: its name does
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return err.name;
  return err.cause?.code ?? (typeof err.code === 'string' ? err.code : undefined) ?? err.cause?.name ?? err.name ?? 'ERROR';
}

export async function callVendor(c: VendorCall): Promise<VendorAnswer> {
  let res: Response;
  try {
    res = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(c.timeoutMs), redirect: 'manual' });
  } catch (e) {
    const code = errorCode(e);
    if (code === 'TimeoutError') return { kind: 'no_answer', sent: true, detail: `no answer within ${c.timeoutMs} ms` };
    return { kind: 'no_answer', sent: !NOT_SENT.has(code), detail: `connection failed (${code})` };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    return { kind: 'no_answer', sent: true, detail: `answer ${res.status} cut short (${errorCode(e)})` };
  }
  if (text.length > MAX_ANSWER_BYTES) text = text.slice(0, MAX_ANSWER_BYTES);
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { kind: 'answer', status: res.status, text, json };
}

/**
 * What a send that got no answer became: a request that may have reached the vendor is an unknown outcome
 * (a status query follows, never a resend: src/processor-requests/engine.ts); one that surely did not
 * (nothing connected) is sent again.
 */
export function unanswered(a: { sent: boolean; detail: string }): { kind: 'unknown' | 'retry'; detail: string } {
  return { kind: a.sent ? 'unknown' : 'retry', detail: a.detail };
}

/** The vendor's answer in a few words for logs and the operator: status and the first bytes, no secrets sent by us. */
export function describeAnswer(a: VendorAnswer): string {
  if (a.kind === 'no_answer') return a.detail;
  return `HTTP ${a.status}${a.text ? ': ' + a.text.slice(0, 200) : ''}`;
}
