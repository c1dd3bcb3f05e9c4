// `npx tsx scripts/bench/routing.ts`: what openapi-backend's routing costs per request, as the library ships
// (`openapi-backend-shipped`, the same version unpatched) and as this project runs it (patches/: the operations
// indexed and each path template's matchers compiled once). For request-to-pay and for one request per operation
// of both documents: matchOperation alone, and the router's share of handleRequest (three parses and one match).
// It prints microseconds per request (the best of a few runs, so a busy machine disturbs it less); it never
// fails on speed. ROUTING_ITERATIONS (300) passes per run.
import path from 'node:path';
import { OpenAPIBackend, OpenAPIRouter } from 'openapi-backend';
import type { Operation, Request } from 'openapi-backend';
import { OpenAPIRouter as ShippedRouter } from 'openapi-backend-shipped/router';

const OPENAPI_DIR = path.resolve(__dirname, '..', '..', 'openapi');
const ITERATIONS = Number(process.env.ROUTING_ITERATIONS ?? 300);
const ROUNDS = 5;

/** What this script asks of a router: the calls handleRequest and validateRequest make. */
interface Router {
  matchOperation(req: Request, strict: boolean): Operation;
  parseRequest(req: Request, operation?: Operation): unknown;
}

/** A request the operation answers: its path template filled in, as a client would send it. */
function requestFor(op: Operation): Request {
  return { method: op.method.toUpperCase(), path: op.path.replace(/\{[^}]+\}/g, 'PCK7M2QX9D4W8N3R6T5Y2Z'), query: {}, headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: {} };
}

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

const matchOnly = (router: Router) => (req: Request) => void router.matchOperation(req, true);

/** What handleRequest asks of the router for one validated request: a parse, the match, a parse with the operation, and validateRequest's parse. */
const routerShare = (router: Router) => (req: Request) => {
  router.parseRequest(req);
  const op = router.matchOperation(req, true);
  router.parseRequest(req, op);
  router.parseRequest(req, op);
};

async function main() {
  const rows: string[][] = [];
  for (const document of ['openapi.yaml', 'admin.yaml']) {
    const api = new OpenAPIBackend({ definition: path.join(OPENAPI_DIR, document), quick: true });
    await api.init();
    const options = { definition: api.definition, apiRoot: api.apiRoot };
    const shipped = new ShippedRouter(options) as unknown as Router;
    const patched = new OpenAPIRouter(options) as unknown as Router;
    const all = api.getOperations().map(requestFor);
    const sets: [string, Request[]][] = [[`${document}: every operation (${all.length})`, all]];
    if (document === 'openapi.yaml') sets.unshift(['requestToPay', [requestFor(api.getOperation('requestToPay')!)]], ['getCollection', [requestFor(api.getOperation('getCollection')!)]]);
    for (const [name, requests] of sets) {
      for (const [what, work] of [['matchOperation', matchOnly], ['parse x3 + match', routerShare]] as const) {
        const before = perRequestUs(requests, work(shipped));
        const after = perRequestUs(requests, work(patched));
        rows.push([name, what, before.toFixed(2), after.toFixed(2), (before / after).toFixed(1) + 'x']);
      }
    }
  }
  const head = ['requests', 'work', 'shipped us', 'patched us', 'speed-up'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
