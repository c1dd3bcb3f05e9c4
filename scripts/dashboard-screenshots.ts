// `npm run dashboard:screenshots`: starts the sandbox (embedded database in a temporary DATA_DIR, with the
// first operator and the demo merchant's owner), makes a few payments, and photographs the main dashboard
// pages in Debian's headless Chromium into docs/dashboard/*.png for docs/dashboard.md.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import { startService } from '../src/server';
import { currentCode } from '../src/people/totp';
import { buildDashboard } from './build-dashboard';

const OUT = path.resolve(__dirname, '..', 'docs', 'dashboard');
const OPERATOR_KEY = 'op_screenshots_0123456789abcdef';
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

async function api(base: string, method: string, p: string, auth: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, { method, headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await res.json()) as { data: any };
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function until(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function shoot(page: Page, name: string, ready: () => Promise<unknown>) {
  await ready();
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
  process.stdout.write(`docs/dashboard/${name}.png\n`);
}

async function main() {
  await buildDashboard();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-shots-'));
  const config = loadConfig({ ...process.env, PORT: '0', DATA_DIR: dataDir, APP_ENV: 'sandbox', SEED_DEMO: 'true', OPERATOR_API_KEY: OPERATOR_KEY, SANDBOX_MM_DELAY_MS: '200', RATE_LIMIT_RPS: '0', DATABASE_URL: '' });
  const service = await startService({ config, log: createLogger((line) => process.stderr.write(line + '\n'), 'error') });
  config.publicBaseUrl = service.url;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'] });
  try {
    const base = service.url;
    const demo = service.demo as NonNullable<typeof service.demo>;
    const op = `Bearer ${OPERATOR_KEY}`;
    // enough businesses that the list pages (20 a page, by cursor)
    for (let i = 1; i <= 21; i++) await api(base, 'POST', '/v1/admin/businesses', op, { name: `Shop ${String(i).padStart(2, '0')}`, default_currency: 'UGX' });
    await api(base, 'POST', '/v1/admin/businesses', op, { name: 'Kampala Books Ltd', default_currency: 'UGX', rolling_reserve_percent: 10, rolling_reserve_months: 6, card_settlement_days: 3, fee_bearer: 'customer', fees: [{ payment_method: 'MOBILE_MONEY', percent: 3, fixed: 0 }] });
    const jwt = (await api(base, 'POST', '/v1/auth/token', '', { api_key: demo.api_key, expires_in: 3600 }, { 'secret-key': demo.api_secret })).token as string;
    const refs: string[] = [];
    for (const [i, phone] of ['256777000001', '256777000003', '256777000001'].entries()) {
      const c = await api(base, 'POST', '/v1/collections/request-to-pay', jwt, { currency: 'UGX', amount: 50000 + i * 12500, payment_method: 'MOBILE_MONEY', account_number: phone, account_name: 'Amina Nakato', merchant_reference: `ORD-2026-11-00${i + 1}`, narration: 'Books order' });
      refs.push(c.gateway_reference);
    }
    const bank = await api(base, 'POST', '/v1/collections/request-to-pay', jwt, { currency: 'USD', amount: 120, payment_method: 'BANK', account_number: 'acct-42', redirect_url: 'https://shop.example/done', merchant_reference: 'ORD-2026-11-004', narration: 'Course fee' });
    await api(base, 'POST', `/v1/sandbox/collections/${bank.gateway_reference}/simulate`, jwt, { outcome: 'COMPLETED' });
    await until(async () => (await api(base, 'GET', `/v1/collections/${refs[0]}/notifications`, jwt)).some((n: { attempts: unknown[] }) => n.attempts.length > 0), 'a delivery attempt');
    // a refund of the first order, for the Refunds page's shot
    await until(async () => (await api(base, 'GET', `/v1/collections/${refs[0]}`, jwt)).transaction_status === 'COMPLETED', 'the first order completed');
    await api(base, 'POST', `/v1/collections/${refs[0]}/refunds`, jwt, { amount: 20000, merchant_reference: 'RF-2026-11-001', reason: 'Two books out of stock' });
    mkdirSync(OUT, { recursive: true });

    const operator = service.firstOperator as NonNullable<typeof service.firstOperator>;
    const owner = service.demoUser as NonNullable<typeof service.demoUser>;
    const desk = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    await desk.goto(`${base}/dashboard`);
    await shoot(desk, '01-sign-in', () => desk.getByLabel('Email').waitFor());
    await desk.getByLabel('Email').fill(operator.email);
    await desk.getByLabel('Password').fill(operator.password);
    await desk.getByRole('button', { name: 'Sign in' }).click();
    await desk.getByRole('button', { name: 'Show my secret' }).click();
    const secret = (await desk.getByTestId('totp-secret').textContent()) as string;
    await shoot(desk, '02-two-factor-set-up', () => desk.getByLabel('Code from the app').waitFor());
    const enrolledStep = Math.floor(Date.now() / 30_000);
    await desk.getByLabel('Code from the app').fill(currentCode(secret, new Date()));
    await desk.getByRole('button', { name: 'Confirm' }).click();
    await desk.getByRole('button', { name: 'I have stored the codes' }).click();
    await shoot(desk, '03-businesses', () => desk.getByRole('navigation', { name: 'Pages' }).getByText('Page 1').waitFor());
    await desk.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Next' }).click();
    await desk.getByRole('link', { name: 'Demo Merchant' }).click();
    await shoot(desk, '04-business', () => desk.getByRole('form', { name: 'Business terms' }).waitFor());
    await desk.getByRole('navigation', { name: 'Business sections' }).getByRole('link', { name: 'MIDs', exact: true }).click();
    const mids = desk.getByRole('region', { name: 'MIDs (routing terminals)' });
    await mids.getByRole('button', { name: /^Edit MID/ }).first().click();
    await mids.getByRole('button', { name: 'Check credentials' }).click();
    await mids.getByRole('status').waitFor();
    await mids.screenshot({ path: path.join(OUT, '12-mid-check-credentials.png') });
    process.stdout.write('docs/dashboard/12-mid-check-credentials.png\n');
    await desk.getByRole('link', { name: 'Collections' }).click();
    await shoot(desk, '05-collections', () => desk.getByText(/4 collections created/).waitFor());
    await desk.getByRole('link', { name: 'ORD-2026-11-001' }).click();
    await shoot(desk, '06-collection', () => desk.getByRole('region', { name: 'Ledger postings' }).getByRole('table').waitFor());

    const phone = await (await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true })).newPage();
    await phone.goto(`${base}/dashboard`);
    await phone.getByLabel('Email').fill(owner.email);
    await phone.getByLabel('Password').fill(owner.password);
    await phone.getByRole('button', { name: 'Sign in' }).click();
    await shoot(phone, '07-merchant-payments-phone', () => phone.getByText(/4 collections created/).waitFor());
    await phone.getByRole('link', { name: 'ORD-2026-11-001' }).click();
    await shoot(phone, '08-merchant-payment-phone', () => phone.getByRole('region', { name: 'Webhook deliveries' }).getByRole('table').waitFor());
    // the phone's header folds its navigation behind the Menu button: a shot of it open, then through it
    const menu = phone.getByRole('button', { name: 'Menu' });
    await menu.click();
    await shoot(phone, '16-merchant-menu-phone', () => phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balances' }).waitFor());
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Balances' }).click();
    await shoot(phone, '09-merchant-balances-phone', () => phone.getByRole('region', { name: 'UGX wallet' }).waitFor());
    await menu.click();
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens and webhooks' }).click();
    await shoot(phone, '10-merchant-tokens-phone', () => phone.getByRole('form', { name: 'New API token' }).waitFor());
    await menu.click();
    await phone.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhook deliveries' }).click();
    await shoot(phone, '15-merchant-deliveries-phone', () => phone.getByRole('button', { name: /^Re-send webhook of/ }).first().waitFor());
    await desk.getByRole('link', { name: 'Refunds' }).click();
    await shoot(desk, '17-refunds', () => desk.getByText('RF-2026-11-001').first().waitFor());
    await desk.getByRole('link', { name: 'Audit log' }).click();
    await shoot(desk, '11-audit-log', () => desk.getByRole('navigation', { name: 'Pages' }).waitFor());
    await desk.getByRole('link', { name: operator.email }).click();
    await shoot(desk, '13-account', () => desk.getByRole('form', { name: 'Change password' }).waitFor());
    await desk.getByRole('button', { name: 'Replace authenticator' }).click();
    await desk.getByLabel('Your password').fill(operator.password);
    // the current authenticator's code too, from the next 30-second step: the enrolment's code is used
    while (Math.floor(Date.now() / 30_000) <= enrolledStep) await new Promise((r) => setTimeout(r, 500));
    await desk.getByLabel('Code from your current authenticator').fill(currentCode(secret, new Date()));
    await desk.getByRole('button', { name: 'Show my new secret' }).click();
    await shoot(desk, '14-replace-authenticator', () => desk.getByRole('img', { name: /QR code/ }).waitFor());
  } finally {
    await browser.close();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`screenshots failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
