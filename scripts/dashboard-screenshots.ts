// `npm run dashboard:screenshots`: starts the sandbox (embedded database in a temporary DATA_DIR, with the
// first operator and the demo merchant's owner), makes a few payments, and photographs the main dashboard
// pages in Debian's headless Chromium into docs/dashboard/*.png for docs/dashboard.md, then the steps of the
// two walk-throughs: a merchant's first day (docs/dashboard/merchant-first-day.md: the team, a token, a
// refund, a payout a second owner approves, the statement) and an operator's day
// (docs/dashboard/operator-day.md: the go-live review, the overview and held payments, the settlement
// report, market rates). Everything is done through the pages or the API, as a person would.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
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

async function until(check: () => Promise<boolean>, what: string, tries = 200) {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const step = (at = Date.now()) => Math.floor(at / 30_000);

/**
 * The code an authenticator app of `secret` shows in a 30-second step after `used`: the service takes each
 * code once, so this waits for the next step when the current one's code was given already.
 */
async function freshCode(secret: string, used: number): Promise<{ code: string; step: number }> {
  while (step() <= used) await new Promise((r) => setTimeout(r, 500));
  const now = Date.now();
  return { code: currentCode(secret, new Date(now)), step: step(now) };
}

/** Follows a link of the main navigation, through the header's Menu button where it is folded (a phone). */
async function go(page: Page, label: string) {
  const toggle = page.getByRole('button', { name: 'Menu' });
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
}

/** Sets up two-factor authentication from Your account; returns the secret and the step whose code it used. */
async function enrolFromAccount(page: Page, base: string): Promise<{ secret: string; used: number }> {
  await page.goto(`${base}/dashboard/account`);
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
  await page.getByRole('button', { name: 'Show my secret' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent()) as string;
  const { code, step: used } = await freshCode(secret, 0);
  await page.getByLabel('Code from the app').fill(code);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('button', { name: 'I have stored the codes' }).click();
  return { secret, used };
}

/** The token of the invitation link in the email to `to`, as the outbox (DATA_DIR/mail, no SMTP_URL) holds it. */
async function invitationToken(dataDir: string, to: string): Promise<string> {
  const dir = path.join(dataDir, 'mail');
  let token: string | undefined;
  await until(async () => {
    if (!existsSync(dir)) return false;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.eml'))) {
      // quoted-printable: soft line breaks and escapes undone
      const text = readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
      const found = /\/dashboard\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
      if (found && text.includes(`To: ${to}`)) token = found;
    }
    return token !== undefined;
  }, `the invitation email to ${to}`, 600);
  return token as string;
}

async function shoot(page: Page, name: string, ready: () => Promise<unknown>) {
  await ready();
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
  process.stdout.write(`docs/dashboard/${name}.png\n`);
}

async function main() {
  await buildDashboard();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-shots-'));
  const config = loadConfig({ ...process.env, PORT: '0', DATA_DIR: dataDir, APP_ENV: 'sandbox', SEED_DEMO: 'true', OPERATOR_API_KEY: OPERATOR_KEY, SANDBOX_MM_DELAY_MS: '200', RATE_LIMIT_RPS: '0', DATABASE_URL: '',
    // emails as files in DATA_DIR/mail (the invitation's link is read there); an owner invited in the walk-through
    // approves the payout at once, where a real one waits OWNER_APPROVAL_WAIT_HOURS (72) after joining
    SMTP_URL: '', OWNER_APPROVAL_WAIT_HOURS: '0' });
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
    // signing in lands on the Overview; the businesses are a link away
    await desk.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await go(desk, 'Businesses');
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
    // signing in lands a merchant on the Overview, its 30 days drawn day by day
    await shoot(phone, '18-merchant-overview-phone', () => phone.locator('.day-chart .uplot').first().waitFor());
    await go(phone, 'Payments');
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
    await merchantFirstDay(phone, base, dataDir, browser);
    await operatorDay(desk);
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

/** The second half of docs/dashboard/merchant-first-day.md, on the demo owner's phone, signed in. */
async function merchantFirstDay(phone: Page, base: string, dataDir: string, browser: Browser) {
  // the team: a second owner invited, who will approve the payout
  const second = 'grace@demo-merchant.example';
  await go(phone, 'Team');
  const invite = phone.getByRole('form', { name: 'Invite someone' });
  await invite.getByLabel('Email').fill(second);
  await invite.getByLabel('Role').selectOption({ label: 'Owner' });
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await shoot(phone, '19-merchant-team-invite-phone', () => phone.getByText(`Invitation sent to ${second}`).waitFor());

  // a second API token: its secret shown once
  await go(phone, 'API tokens and webhooks');
  const token = phone.getByRole('form', { name: 'New API token' });
  await token.getByLabel('Webhook URL').fill('https://shop.example/paycollect/webhook');
  await token.getByLabel('Webhook hash (signing secret)').fill('whsec-demo-shop-2026-0002');
  await token.getByLabel('Notification email').fill('payments@shop.example');
  await token.getByRole('button', { name: 'Create token' }).click();
  await shoot(phone, '20-merchant-new-token-phone', () => phone.getByTestId('api-secret').waitFor());
  await phone.getByRole('button', { name: 'I have stored the secret' }).click();

  // money out from the dashboard takes the owner's authenticator code: set one up first
  const owner = await enrolFromAccount(phone, base);

  // a refund of part of the third order: reviewed, then confirmed
  await go(phone, 'Payments');
  await phone.getByRole('link', { name: 'ORD-2026-11-003' }).click();
  const refund = phone.getByRole('form', { name: 'Refund' });
  await refund.getByLabel('Amount').fill('25000');
  await refund.getByLabel('Reason').fill('One book returned');
  await refund.getByRole('button', { name: 'Review refund' }).click();
  await shoot(phone, '21-merchant-refund-review-phone', () => refund.getByRole('group', { name: 'Confirm the refund' }).waitFor());
  await refund.getByRole('button', { name: 'Confirm refund' }).click();
  await shoot(phone, '22-merchant-refund-done-phone', () =>
    phone.getByRole('region', { name: 'Refunds', exact: true }).getByText('COMPLETED', { exact: true }).first().waitFor({ timeout: 60_000 }));

  // above 20,000 UGX a payout waits for another owner (lowering the threshold applies at once)
  await go(phone, 'Balances');
  const threshold = phone.getByRole('form', { name: 'UGX approval threshold' });
  await threshold.getByLabel('Approval threshold').fill('20000');
  await threshold.getByRole('button', { name: 'Save threshold' }).click();
  await threshold.getByText('Approval threshold saved.').waitFor();

  // the payout asked for: what it does before it is sent, then its page waiting for approval
  await go(phone, 'Disbursements');
  await phone.getByRole('link', { name: 'New disbursement' }).click();
  const payout = phone.getByRole('form', { name: 'New disbursement' });
  await payout.getByLabel('Amount').fill('30000');
  await payout.getByLabel('Phone number').fill('256772123456');
  await payout.getByLabel('Account name').fill('Okello Transport');
  await payout.getByLabel('Narration').fill('November deliveries');
  await payout.getByText("it needs another owner's approval").waitFor();
  const merchantReference = await payout.getByLabel('Merchant reference').inputValue();
  const asked = await freshCode(owner.secret, owner.used);
  await payout.getByLabel('Authenticator code').fill(asked.code);
  await shoot(phone, '23-merchant-payout-request-phone', () => payout.getByRole('button', { name: 'Request payout' }).waitFor());
  await payout.getByRole('button', { name: 'Request payout' }).click();
  await shoot(phone, '24-merchant-payout-waiting-phone', () => phone.getByText('You asked for this disbursement: another owner must approve it. You may reject it.').waitFor());
  const reference = new URL(phone.url()).pathname.split('/').pop() as string;

  // the invited owner joins from the emailed link, sets up an authenticator and approves
  const grace = await (await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true })).newPage();
  await grace.goto(`${base}/dashboard/accept-invitation?token=${await invitationToken(dataDir, second)}`);
  const accept = grace.getByRole('form', { name: 'Accept invitation' });
  await accept.getByLabel('Your name').fill('Grace Namusoke');
  await accept.getByLabel('Choose a password').fill('grace chooses a long passphrase');
  await shoot(grace, '25-accept-invitation-phone', () => grace.getByTestId('invitation').waitFor());
  await accept.getByRole('button', { name: 'Create my account' }).click();
  await grace.getByText(`Your account ${second} is ready.`).waitFor();
  await grace.goto(`${base}/dashboard`);
  await grace.getByLabel('Email').fill(second);
  await grace.getByLabel('Password').fill('grace chooses a long passphrase');
  await grace.getByRole('button', { name: 'Sign in' }).click();
  await grace.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  const approver = await enrolFromAccount(grace, base);
  // back on the Overview, what waits for her: the count under "Waiting for a decision" and the menu's badge
  await grace.goto(`${base}/dashboard`);
  const waiting = grace.getByRole('region', { name: 'Waiting for a decision' });
  await shoot(grace, '35-merchant-waiting-for-you-phone', () => waiting.getByText('(1 for you)').waitFor());
  await waiting.getByRole('link', { name: 'disbursement waiting for approval' }).click();
  await grace.getByRole('heading', { name: 'Disbursements waiting for approval' }).waitFor();
  await grace.getByRole('link', { name: merchantReference }).click();
  await grace.getByRole('heading', { name: `Disbursement ${reference}` }).waitFor();
  const approve = grace.getByRole('form', { name: 'Approve' });
  await approve.getByLabel('Authenticator code').fill((await freshCode(approver.secret, approver.used)).code);
  await approve.getByRole('button', { name: 'Approve' }).click();
  await shoot(grace, '26-merchant-payout-approve-phone', () => approve.getByRole('group', { name: 'Confirm the approval' }).waitFor());
  await approve.getByRole('button', { name: 'Confirm approval' }).click();
  await shoot(grace, '27-merchant-payout-approved-phone', () => grace.getByRole('region', { name: 'Timeline' }).getByText(/^Approved /).waitFor());
  await grace.context().close();

  // the statement: the UGX wallet after the day, then its statement of today (UTC) on screen, with the CSV of the same days
  await go(phone, 'Balances');
  const wallet = phone.getByRole('region', { name: 'UGX wallet' });
  await wallet.getByRole('link', { name: 'UGX statement' }).waitFor();
  await wallet.screenshot({ path: path.join(OUT, '28-merchant-statement-phone.png') });
  process.stdout.write('docs/dashboard/28-merchant-statement-phone.png\n');
  await wallet.getByRole('link', { name: 'UGX statement' }).click();
  const statementForm = phone.getByRole('form', { name: 'Statement filters' });
  await statementForm.getByLabel('From (UTC day, yyyy-mm-dd)').fill(new Date().toISOString().slice(0, 10));
  await statementForm.getByRole('button', { name: 'Show statement' }).click();
  await shoot(phone, '34-merchant-statement-page-phone', () => phone.getByRole('region', { name: 'UGX statement lines' }).getByText('Payout held').first().waitFor());

  // the demo asks to go live, for the operator's review (docs/dashboard/operator-day.md)
  await go(phone, 'Go live');
  await phone.getByLabel('Your note for the operator').fill('We start selling in December.');
  await phone.getByRole('button', { name: 'Ask to go live' }).click();
  await phone.getByText(/You asked to go live on/).waitFor();
}

/** docs/dashboard/operator-day.md, on the operator's desktop, signed in. */
async function operatorDay(desk: Page) {
  await go(desk, 'Go-live requests');
  await desk.getByRole('link', { name: 'Demo Merchant' }).click();
  const review = desk.getByRole('region', { name: 'Go-live review' });
  await review.getByLabel('What was reviewed').fill('Sandbox test cases; KYC file checked');
  // not verified here: the demo has test cases left, which the picture shows
  await shoot(desk, '29-go-live-review', () => review.getByRole('listitem').filter({ hasText: 'MOBILE_MONEY_SUCCESS' }).getByText('passed').waitFor());

  await go(desk, 'Overview');
  const waiting = desk.getByRole('region', { name: 'Waiting on an operator' });
  await shoot(desk, '30-operator-overview', async () => {
    await waiting.waitFor();
    await desk.locator('.day-chart .uplot').first().waitFor();
  });
  await waiting.getByRole('link', { name: /^held payments?$/ }).click();
  await shoot(desk, '31-held-payments', async () => {
    await desk.getByRole('heading', { name: 'What to do with a held payment' }).waitFor();
    await desk.getByText(/collections? created from/).waitFor();
  });

  await go(desk, 'Settlement report');
  const today = new Date().toISOString().slice(0, 10);
  const day = desk.getByRole('form', { name: 'Settlement day' });
  await day.getByLabel('Day (UTC, yyyy-mm-dd)').fill(today);
  await day.getByRole('button', { name: 'Show report' }).click();
  await shoot(desk, '32-settlement-report', () => desk.getByRole('heading', { name: `Totals for ${today} (UTC)` }).waitFor());

  await go(desk, 'Market rates');
  await shoot(desk, '33-market-rates', () => desk.getByRole('region', { name: 'Market rates in use' }).waitFor());
}

main().catch((e: unknown) => {
  process.stderr.write(`screenshots failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
