// Proves the service serves the built dashboard at /dashboard: index.html for every app address (the SPA
// fallback) with a strict content security policy, hashed assets cached for good, unknown assets 404.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
/** A fresh embedded database takes a while on a loaded machine. */
const SETUP_MS = 180_000;
beforeAll(async () => {
  svc = await startTestService();
}, SETUP_MS);
afterAll(async () => {
  await svc?.close();
});

const get = (p: string) => fetch(svc.url + p, { redirect: 'manual' });

it.each(['/dashboard', '/dashboard/', '/dashboard/businesses/7', '/dashboard/payments/PC123?status=FAILED'])('%s answers the app shell', async (p) => {
  const res = await get(p);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('cache-control')).toBe('no-cache');
  const html = await res.text();
  expect(html).toContain('<div id="root"></div>');
  expect(html).toMatch(/src="\/dashboard\/assets\/index-[\w-]+\.js"/);
});

it('serves the hashed script as JavaScript, cached as immutable', async () => {
  const script = readdirSync(path.join(__dirname, '..', '..', 'dashboard', 'dist', 'assets')).find((f) => f.endsWith('.js'));
  const res = await get(`/dashboard/assets/${script}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/javascript/);
  expect(res.headers.get('cache-control')).toContain('immutable');
});

it('answers 404 for an asset that does not exist, not the app shell', async () => {
  const res = await get('/dashboard/assets/nothing-here.js');
  expect(res.status).toBe(404);
  expect(await res.text()).not.toContain('<div id="root">');
});

it('leaves the API and other paths alone', async () => {
  expect((await get('/dashboardx')).status).toBe(404);
  expect((await get('/healthz')).status).toBe(200);
});
