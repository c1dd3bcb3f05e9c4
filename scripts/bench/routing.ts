// `npx tsx scripts/bench/routing.ts`: what openapi-backend's routing costs per request, with its list of
// operations rebuilt on every call (as the library ships) and with the list built once at start-up
// (src/http/operations-cache.ts). For request-to-pay and for one request per operation of both documents:
// matchOperation alone, and the router's share of handleRequest (three parses and one match).
// It prints microseconds per request (the best of a few runs, so a busy machine disturbs it less); it
// never fails on speed. ROUTING_ITERATIONS (300) passes per run.
import path from 'node:path';
import { OpenAPIBackend } from 'openapi-backend';
import type { Operation, Request } from 'openapi-backend';
import { cacheOperations } from '../../src/http/operations-cache';

const OPENAPI_DIR = path.resolve(__dirname, '..', '..', 'openapi');
const ITERATIONS = Number(process.env.ROUTING_ITERATIONS ?? 300);

/** A request the operation answers: its path template filled in, as a client would send it. */
function requestFor(op: Operation): Request {
  return { method: op.method.toUpperCase(), path: op.path.replace(/\{[^}]+\}/g, 'PCK7M2QX9D4W8N3R6T5Y2Z'), query: {}, headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: {} };
}

async function load(document: string, cached: boolean): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({ definition: path.join(OPENAPI_DIR, document), quick: true });
  await api.init();
  if (cached) cacheOperations(api);
  return api;
}

const ROUNDS = 5;

/** Microseconds per request: the best of ROUNDS runs of ITERATIONS passes over every request, after a warm-up. */
function perRequestUs(requests: Request[], work: (req: Request) => void): number {
  for (let i = 0; i < ITERATIONS; i++) for (const r of requests) work(r);
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) for (const r of requests) work(r);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e3 / (ITERATIONS * requests.length));
  }
  return best;
}

function routerShare(api: OpenAPIBackend) {
  return (req: Request) => {
    // what handleRequest asks of the router for one validated request
    api.router.parseRequest(req);
    const op = api.router.matchOperation(req, true);
    api.router.parseRequest(req, op);
    api.router.parseRequest(req, op);
  };
}

async function main() {
  const rows: string[][] = [];
  for (const document of ['openapi.yaml', 'admin.yaml']) {
    const shipped = await load(document, false);
    const cached = await load(document, true);
    const all = shipped.getOperations().map(requestFor);
    const sets: [string, Request[]][] = [[`${document}: every operation (${all.length})`, all]];
    if (document === 'openapi.yaml') sets.unshift(['requestToPay', [requestFor(shipped.getOperation('requestToPay')!)]]);
    for (const [name, requests] of sets) {
      for (const [what, work] of [
        ['matchOperation', (api: OpenAPIBackend) => (r: Request) => void api.router.matchOperation(r, true)],
        ['parse x3 + match', routerShare],
      ] as const) {
        const before = perRequestUs(requests, work(shipped));
        const after = perRequestUs(requests, work(cached));
        rows.push([name, what, before.toFixed(2), after.toFixed(2), (before / after).toFixed(1) + 'x']);
      }
    }
  }
  const head = ['requests', 'work', 'shipped us', 'cached us', 'speed-up'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
