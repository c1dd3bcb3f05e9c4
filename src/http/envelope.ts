// The response envelope (docs/contract/errors.md), and the shape every handler returns.
import type { Sink } from '../reports/csv';

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** defaults to application/json; the body is then serialised as JSON */
  contentType?: string;
  /** a body written a piece at a time (a CSV report) instead of `body`: see src/http/streaming.ts */
  stream?: (sink: Sink) => Promise<void>;
}

export interface Envelope<S extends 'success' | 'accepted', D> {
  code: 200;
  status: S;
  message: string;
  data: D;
}

export function ok<D>(data: D, message: string, headers?: Record<string, string>): { body: Envelope<'success', D>; headers?: Record<string, string> } {
  return { body: { code: 200, status: 'success', message, data }, headers };
}

export function accepted<D>(data: D, message: string, headers?: Record<string, string>): { body: Envelope<'accepted', D>; headers?: Record<string, string> } {
  return { body: { code: 200, status: 'accepted', message, data }, headers };
}
