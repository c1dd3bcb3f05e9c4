// Proves Strict-Transport-Security: a deployment served over https (its PUBLIC_BASE_URL) tells browsers to keep to https on every answer (API, dashboard, hosted pages, errors), and one served over plain http sends no such header.
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let https: TestService;
let http: TestService;

beforeAll(async () => {
  https = await startTestService({ env: { PUBLIC_BASE_URL: 'https://pay.example' } });
  http = await startTestService();
}, 180_000);
afterAll(async () => {
  await https?.close();
  await http?.close();
});

// plain fetch: the header is what is checked, on answers of every kind (a 404 and /healthz are outside the spec)
const PATHS = ['/v1/public-key', '/v1/collections', '/v1/admin/session', '/dashboard/', '/healthz', '/no/such/page'];

it('is sent on every answer when PUBLIC_BASE_URL is https, for a year', async () => {
  for (const p of PATHS) {
    const res = await fetch(https.url + p);
    expect([p, res.headers.get('strict-transport-security')]).toEqual([p, 'max-age=31536000']);
  }
});

it('is not sent when the deployment is served over http', async () => {
  for (const p of PATHS) expect([p, (await fetch(http.url + p)).headers.get('strict-transport-security')]).toEqual([p, null]);
});
