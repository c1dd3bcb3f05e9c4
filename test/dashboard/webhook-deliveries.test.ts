// Proves, in Chromium against a real service and database, that a merchant developer reads the business's delivery log
// (state, attempts, last answer), filters it by state, opens a payment from it and re-sends a webhook that gave up (the
// receiver gets the same webhook-id again), while a merchant viewer reads the log with no re-send button.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { closeAll, dashboardPage, describeBrowser, signIn } from '../helpers/dashboard';
import { createNotifyMerchant, createPendingCollection, eventually, finishCollection, notificationsOf, startReceiver } from '../helpers/notify-fixtures';
import type { NotifyMerchant, Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { createUser } from '../helpers/users';

let svc: TestService;
let browser: Browser;
let receiver: Receiver;
let shop: NotifyMerchant;
let down = true;
const refs: string[] = [];
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;

beforeAll(async () => {
  // One attempt per notification: the first payment's webhook gives up while the endpoint is down.
  svc = await startTestService({ env: { WEBHOOK_RETRY_SCHEDULE: '0s' } });
  receiver = await startReceiver(0, () => (down ? { status: 503, body: 'maintenance' } : { status: 200, body: '{"received":true}' }));
  shop = await createNotifyMerchant(svc.services, { webhookUrl: receiver.url });
  for (const status of ['COMPLETED', 'FAILED'] as const) {
    const p = await createPendingCollection(svc.services, shop);
    refs.push(p.gateway_reference);
    await finishCollection(svc.services, p.id, status);
    await eventually(async () => (await notificationsOf(svc.services, p.id))[0]?.gave_up_at ?? (await notificationsOf(svc.services, p.id))[0]?.delivered_at, 15_000, 'a settled delivery');
    down = false;
  }
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(() => closeAll(browser, receiver, svc));

describeBrowser('webhook deliveries in Chromium', () => {
  it('lists, filters, links to the payment and re-sends what gave up', async () => {
    const developer = await createUser(svc, { role: 'merchant_developer', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/');
    await signIn(page, developer.email, developer.password);
    await page.getByRole('link', { name: 'Webhook deliveries' }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    const [gaveUp, delivered] = refs;
    const rowOf = (ref: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: ref }) });
    await rowOf(gaveUp).getByText('gave up').waitFor();
    await rowOf(gaveUp).getByRole('cell', { name: 'HTTP 503' }).waitFor();
    await rowOf(delivered).getByText(/delivered .* UTC/).waitFor();
    expect(await page.getByRole('row').count()).toBe(3); // heading row and two notifications

    await page.getByLabel('State').selectOption('gave_up');
    await rowOf(delivered).waitFor({ state: 'detached' });
    expect(await page.getByRole('row').count()).toBe(2);

    const before = receiver.received.length;
    const firstId = receiver.received.find((r) => r.body.includes(gaveUp))?.headers['webhook-id'];
    await page.getByRole('button', { name: `Re-send webhook of ${gaveUp}` }).click();
    await page.getByText(`Re-send of ${gaveUp} queued`).waitFor();
    const again = await eventually(() => receiver.received.slice(before).find((r) => r.body.includes(gaveUp)), 15_000, 'the re-sent delivery');
    expect(again.headers['webhook-id']).toBe(firstId);
    // a state is read afresh when chosen: once the re-sent notification is acknowledged it is listed as delivered
    await eventually(async () => (await svc.services.db.oneOrNone(
      'SELECT 1 FROM notifications n JOIN collections c ON c.id = n.collection_id WHERE c.gateway_reference = $1 AND n.delivered_at IS NOT NULL', [gaveUp])), 15_000, 'the re-sent notification delivered');
    await page.getByLabel('State').selectOption('delivered');
    await rowOf(gaveUp).getByText(/delivered .* UTC/).waitFor();
    expect(await page.getByRole('row').count()).toBe(3);

    await page.getByRole('link', { name: delivered }).click();
    await page.getByRole('heading', { name: `Payment ${delivered}` }).waitFor();
    await page.context().close();
  }, 180_000);

  it('shows a viewer the log without a re-send button', async () => {
    const viewer = await createUser(svc, { role: 'merchant_viewer', business_id: shop.businessId });
    const page = await dashboardPage(browser, svc, '/deliveries');
    await signIn(page, viewer.email, viewer.password);
    await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
    await page.getByRole('link', { name: refs[1] }).waitFor();
    expect(await page.getByRole('button', { name: /Re-send/ }).count()).toBe(0);
    await page.context().close();
  }, 120_000);
});
