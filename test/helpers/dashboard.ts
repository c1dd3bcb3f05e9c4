// Drives the dashboard in Debian's Chromium against a real service: a describe that skips (outside
// CI only) when Chromium is absent, pages at desktop or phone width, and sign-in helpers.
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM } from './browser';
import { OPERATOR_KEY } from './service';
import type { TestService } from './service';

const canBrowse = existsSync(CHROMIUM) || process.env.CI === 'true';
if (!canBrowse) console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
/** `describe` when Chromium is there (always in CI, where its absence fails), otherwise `describe.skip`. */
export const describeBrowser = canBrowse ? describe : describe.skip;

export const PHONE = { width: 390, height: 844 };

export async function dashboardPage(browser: Browser, svc: TestService, path = '/', viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  // Conditions, not sleeps: a page waits up to this long for what it expects on a loaded machine.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${svc.url}/dashboard${path === '/' ? '' : path}`);
  return page;
}

export async function signInOperator(page: Page, key = OPERATOR_KEY): Promise<void> {
  await page.getByLabel('Operator', { exact: true }).check();
  await page.getByLabel('Operator key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function signInMerchant(page: Page, apiKey: string, apiSecret: string): Promise<void> {
  await page.getByLabel('Merchant', { exact: true }).check();
  await page.getByLabel('API key').fill(apiKey);
  await page.getByLabel('API secret').fill(apiSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The error shown next to a form field (the element the API's field name marks). */
export function fieldError(page: Page, scope: string, field: string) {
  return page.getByRole('form', { name: scope }).locator(`.field-error[data-field="${field}"]`);
}

/** True when nothing on the page is wider than the window (no sideways scrolling of the page itself). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}
