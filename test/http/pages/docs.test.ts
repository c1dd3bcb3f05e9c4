// Proves the HTML API reference at /docs renders and works in real Chromium from the service alone (Redoc's script
// is served locally; only Redocly's footer logo is fetched from outside).
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../helpers/browser';
import { needsChromium } from '../../helpers/requires';
import { startTestService } from '../../helpers/service';
import type { TestService } from '../../helpers/service';

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startTestService();
  // null only outside CI without Chromium, where the tests that use it are skipped
  browser = (await launchBrowser()) as Browser;
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

needsChromium().it('renders the merchant reference interactively from the service alone', async () => {
  const page = await browser.newPage();
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!/^(data:|blob:)/.test(r.url()) && !r.url().startsWith(svc.url)) foreign.push(r.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(svc.url + '/docs');
  await page.getByText('PayCollect Merchant API (1.0.0)').waitFor();
  // the sidebar only expands once Redoc's script has run
  await page.getByText('Card encryption', { exact: true }).first().click();
  await page.getByText('Download the card encryption public key').first().waitFor();
  expect(foreign.filter((u) => !u.endsWith('/logo-mini-full.svg'))).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
