// Drives the dashboard in Debian's Chromium against a real service: a describe that skips (outside
// CI only) when Chromium is absent, pages at desktop or phone width, and sign-in helpers.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM } from './browser';
import type { TestService } from './service';

const canBrowse = existsSync(CHROMIUM) || process.env.CI === 'true';
if (!canBrowse) console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
/** `describe` when Chromium is there (always in CI, where its absence fails), otherwise `describe.skip`. */
export const describeBrowser = canBrowse ? describe : describe.skip;

export const PHONE = { width: 390, height: 844 };

/** `timezoneId`: the browser's time zone (an IANA name), for pages that show times in the viewer's zone. */
export async function dashboardPage(browser: Browser, svc: TestService, path = '/', viewport = { width: 1280, height: 900 }, o: { timezoneId?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport, timezoneId: o.timezoneId });
  // Conditions, not sleeps: a page waits up to this long for what it expects on a loaded machine.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${svc.url}/dashboard${path === '/' ? '' : path}`);
  return page;
}

/** Signs in through the page: email and password, then the authenticator code when one is given. */
export async function signIn(page: Page, email: string, password: string, code?: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Sign in' }).click();
  if (code === undefined) return;
  const second = page.getByRole('form', { name: 'Second factor' });
  await second.getByLabel('Authenticator code').fill(code);
  await second.getByRole('button', { name: 'Continue' }).click();
}

/** The error shown next to a form field (the element the API's field name marks). */
export function fieldError(page: Page, scope: string, field: string) {
  return page.getByRole('form', { name: scope }).locator(`.field-error[data-field="${field}"]`);
}

/** Follows a link of the main navigation, through the header's Menu button where it is folded (a phone). */
export async function navTo(page: Page, label: string): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Menu' });
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  // an item's name may end in its badge's count ("Disbursements 1 waiting for your approval")
  const name = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( ?\\d+ .*)?$`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
}

/** True when nothing on the page is wider than the window (no sideways scrolling of the page itself). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

/** Closes what a browser test opened, in order (the browser before the service it talks to); a missing one is skipped. */
export async function closeAll(...opened: ({ close(): Promise<unknown> } | undefined)[]): Promise<void> {
  for (const o of opened) await o?.close();
}

/** Clicks the link and reads the file the browser saved, with the name the service gave it. */
export async function download(page: Page, name: string | RegExp): Promise<{ file: string; text: string }> {
  const link = page.getByRole('link', { name });
  await link.waitFor();
  const [saved] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const path = await saved.path();
  return { file: saved.suggestedFilename(), text: await readFile(path, 'utf8') };
}
