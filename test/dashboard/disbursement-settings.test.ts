// Proves, in Chromium against a real service and database, the disbursement settings: the operator freezes a business's disbursements, sets its fee and a wallet's limits (a bad limit refused at its field, nothing changed); on Balances an owner sees what is held for disbursements and sets the wallet's approval threshold (saved in the database), a bad amount shows the API's error at the field and changes nothing, the form no longer invites removing it (it says what empty means and that removing waits for the notice, as a removal then does), and a higher threshold is shown waiting for its notice until an owner stops it; on the API tokens page an owner sets a token's IP allowlist, a block with host bits set shows its error at the field and changes nothing; a developer sees no allowlist form; an owner gives a new token its allowlist in the New API token form, a bad block refused at the field with no token made, and a developer's form has no such field.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, fieldError, signIn } from '../helpers/dashboard';
import { mobileMoney, setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser, totpCode } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let shop: MerchantSetup;
const db = () => svc.database.db;

beforeAll(async () => {
  svc = await startTestService({ env: { SANDBOX_MM_DELAY_MS: '3600000' } });
  shop = await setupMerchant(svc);
  await db().none("UPDATE mids SET disburses = true WHERE business_id = $1 AND payment_method = 'MOBILE_MONEY'", [shop.businessId]);
  const created = await shop.client.post('/v1/collections/request-to-pay', mobileMoney({ amount: 50000, account_number: '256700000009' }));
  expect((await shop.client.post(`/v1/sandbox/collections/${created.body.data.gateway_reference}/simulate`, { outcome: 'COMPLETED' })).status).toBe(200);
  // 1,234 held: stays PROCESSING at the simulator
  const d = await shop.client.post('/v1/disbursements', {
    amount: 1234, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123503', account_name: 'Okello', merchant_reference: 'PAY-HELD-1',
  }, { headers: { 'secret-key': shop.apiSecret } });
  expect(d.status).toBe(200);
  browser = (await launchBrowser()) as Browser;
}, 180_000);
afterAll(() => closeAll(browser, svc));

const threshold = async () => (await db().one("SELECT disbursement_approval_threshold_minor::text AS t FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [shop.businessId])).t;
const allowlist = async () => (await db().one('SELECT ip_allowlist::text[] AS a FROM api_tokens WHERE id = $1', [shop.apiTokenId])).a;

describeBrowser('disbursement settings in the dashboard in Chromium', () => {
  it('shows an owner the disbursement hold and lets them set the approval threshold', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/balances');
    await signIn(page, owner.email, owner.password);
    const wallet = page.getByRole('region', { name: 'UGX wallet' });
    await wallet.getByText('Held for disbursements').waitFor();
    expect(await wallet.textContent()).toContain('1,234');
    const form = page.getByRole('form', { name: 'UGX approval threshold' });
    await form.getByLabel('Approval threshold').fill('10.001');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await form.getByRole('alert').first().waitFor();
    expect(await threshold()).toBeNull();
    await form.getByLabel('Approval threshold').fill('2500');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await form.getByText('Approval threshold saved.').waitFor();
    expect(await threshold()).toBe('250000');
    await wallet.getByText(/Approval above\s*2,500/).waitFor();
    // the form says what raising it does, and no longer invites leaving it empty
    const hint = await form.textContent();
    expect(hint).toContain('raising it takes effect only after a notice period, and every owner is emailed');
    expect(hint).not.toContain('Leave empty');
    // and what an empty field means, and that removing it waits as raising does
    expect(hint).toContain('An empty field means no threshold: every disbursement would be sent without a second owner, so removing it waits for the same notice and any owner can stop it.');
    // raising waits: shown with its date and who asked, the threshold in force unchanged, until an owner stops it
    await form.getByLabel('Approval threshold').fill('5000');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await form.getByText('Asked for: the higher threshold takes effect after its notice (shown above), and every owner has been emailed.').waitFor();
    const waiting = wallet.getByRole('status', { name: 'Changes waiting for their notice' });
    await waiting.getByText(new RegExp(`Approval threshold becomes 5,000 UGX on .* \\(asked by ${owner.email}\\)`)).waitFor();
    expect(await threshold()).toBe('250000');
    await waiting.getByRole('button', { name: 'Stop this change' }).click();
    await waiting.waitFor({ state: 'detached' });
    expect(await db().one("SELECT count(*)::int AS n FROM guard_changes WHERE business_id = $1 AND withdrawn_at IS NOT NULL", [shop.businessId])).toEqual({ n: 1 });
    expect(await threshold()).toBe('250000');
    // removing it (an empty field) waits for its notice too, said as a removal, until an owner stops it
    await form.getByLabel('Approval threshold').fill('');
    await form.getByRole('button', { name: 'Save threshold' }).click();
    await form.getByText('Asked for: removing the threshold takes effect after its notice (shown above), and every owner has been emailed.').waitFor();
    await waiting.getByText(/Approval threshold becomes none \(no disbursement would wait for approval\) on /).waitFor();
    expect(await threshold()).toBe('250000');
    await waiting.getByRole('button', { name: 'Stop this change' }).click();
    await waiting.waitFor({ state: 'detached' });
    expect(await threshold()).toBe('250000');
    await page.context().close();
  }, 120_000);

  it('lets an owner set a token\'s IP allowlist, refusing a bad block at the field; a developer sees no form', async () => {
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/developers');
    await signIn(page, owner.email, owner.password);
    const form = page.getByRole('form', { name: `IP allowlist of ${shop.apiKey}` });
    await form.getByLabel('IP allowlist').fill('203.0.113.7/24');
    await form.getByRole('button', { name: 'Save allowlist' }).click();
    await form.getByText(/has bits set after the first 24/).waitFor();
    expect(await allowlist()).toBeNull();
    await form.getByLabel('IP allowlist').fill('203.0.113.0/24\n198.51.100.7');
    await form.getByRole('button', { name: 'Save allowlist' }).click();
    await form.getByText('IP allowlist saved.').waitFor();
    expect(await allowlist()).toEqual(['203.0.113.0/24', '198.51.100.7/32']);
    await page.getByText('203.0.113.0/24, 198.51.100.7/32').waitFor();
    await page.context().close();

    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    const dev = await dashboardPage(browser, svc, '/developers');
    await signIn(dev, developer.email, developer.password);
    await dev.getByText('203.0.113.0/24, 198.51.100.7/32').waitFor();
    expect(await dev.getByRole('form', { name: `IP allowlist of ${shop.apiKey}` }).count()).toBe(0);
    await dev.context().close();
  }, 120_000);

  it('lets an owner give a new token its IP allowlist, refusing a bad block at the field with no token made; a developer\'s new token form has no such field', async () => {
    const tokens = () => db().any('SELECT ip_allowlist::text[] AS a FROM api_tokens WHERE business_id = $1 AND id <> $2', [shop.businessId, shop.apiTokenId]);
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/developers');
    await signIn(page, owner.email, owner.password);
    const form = page.getByRole('form', { name: 'New API token' });
    await form.getByLabel('Webhook URL').fill('https://shop.example/hooks/paycollect');
    await form.getByLabel('Webhook hash (signing secret)').fill('a-long-enough-signing-secret');
    await form.getByLabel('Notification email').fill('payments@shop.example');
    await form.getByLabel('IP allowlist').fill('198.51.100.9\n203.0.113.7/24');
    await form.getByRole('button', { name: 'Create token' }).click();
    await fieldError(page, 'New API token', 'ip_allowlist').getByText(/has bits set after the first 24/).waitFor();
    expect(await tokens()).toEqual([]);
    await form.getByLabel('IP allowlist').fill('198.51.100.9\n203.0.113.0/24');
    await form.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('region', { name: 'New API secret' }).waitFor();
    expect(await tokens()).toEqual([{ a: ['198.51.100.9/32', '203.0.113.0/24'] }]);
    await page.getByText('198.51.100.9/32, 203.0.113.0/24').waitFor();
    await page.context().close();

    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    const dev = await dashboardPage(browser, svc, '/developers');
    await signIn(dev, developer.email, developer.password);
    const devForm = dev.getByRole('form', { name: 'New API token' });
    await devForm.getByLabel('Webhook URL').waitFor();
    expect(await devForm.getByLabel('IP allowlist').count()).toBe(0);
    await dev.context().close();
  }, 120_000);

  it('lets the operator freeze a business\'s disbursements and set a wallet\'s limits, a bad one refused at its field', async () => {
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc, `/businesses/${shop.businessId}`);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    const terms = page.getByRole('form', { name: 'Disbursement terms' });
    await terms.getByLabel('Freeze disbursements').check();
    await terms.getByLabel('Disbursement fee (%)').fill('1.5');
    await terms.getByRole('button', { name: 'Save disbursement terms' }).click();
    await page.getByText('Disbursements are frozen: new ones are refused.').waitFor();
    expect(await db().one('SELECT disbursements_frozen, disbursement_fee_percent::text AS p FROM businesses WHERE id = $1', [shop.businessId])).toEqual({ disbursements_frozen: true, p: '1.50' });

    await page.getByRole('link', { name: 'Wallets' }).click();
    const limits = page.getByRole('form', { name: 'UGX disbursement limits' });
    await limits.getByLabel('Largest disbursement (UGX)').fill('0');
    await limits.getByRole('button', { name: 'Save UGX limits' }).click();
    await fieldError(page, 'UGX disbursement limits', 'disbursement_limit').waitFor();
    expect((await db().one("SELECT disbursement_limit_minor FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [shop.businessId])).disbursement_limit_minor).toBeNull();
    await limits.getByLabel('Largest disbursement (UGX)').fill('20000');
    await limits.getByLabel('Daily limit (UGX)').fill('60000');
    await limits.getByRole('button', { name: 'Save UGX limits' }).click();
    await limits.getByText('Limits saved.').waitFor();
    expect(await db().one("SELECT disbursement_limit_minor::text AS per, disbursement_daily_limit_minor::text AS daily FROM wallets WHERE business_id = $1 AND currency = 'UGX'", [shop.businessId])).toEqual({ per: '2000000', daily: '6000000' });
    await page.context().close();
  }, 120_000);
});

