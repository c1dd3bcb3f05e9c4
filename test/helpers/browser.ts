// Real headless Chromium (Debian's package) driven by playwright-core; never a downloaded browser.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** null (with one line saying why) when Chromium is absent outside CI; in CI its absence fails. */
export async function launchBrowser(): Promise<Browser | null> {
  if (!existsSync(CHROMIUM)) {
    if (process.env.CI === 'true') throw new Error(`Chromium must be installed in CI (${CHROMIUM})`);
    console.warn(`skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
    return null;
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A phone-sized page whose navigations to the merchant's redirect_url are answered locally. */
export async function phonePage(browser: Browser, merchantOrigin: string): Promise<{ page: Page; landed: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const landed: string[] = [];
  await page.route(`${merchantOrigin}/**`, async (route) => {
    landed.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Back at the shop</h1>' });
  });
  return { page, landed };
}
