// Operations whose body their handler reads as it arrives, not parsed or size-checked by app.ts: a
// processor's statement file of a MID (text/csv, up to its own limit, docs/reconciliation.md).
import type { Request } from 'express';

const STREAMED_BODIES = /^\/v1\/admin\/mids\/[^/]+\/statements$/;

/** Whether `req` carries a body its handler streams (a text/csv statement upload). */
export function isStreamedBody(req: Request): boolean {
  return req.method === 'POST' && STREAMED_BODIES.test(req.path) && req.is('text/csv') === 'text/csv';
}
