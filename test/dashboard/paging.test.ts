// Proves, in Chromium against a real service and database, that the dashboard's lists page by cursor: Next and Previous walk the businesses list with no business shown twice or skipped while new ones are created between pages, Previous back to the first page reads the list's top again, and a merchant owner pages its audit log.
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { dashboardPage, describeBrowser, signIn, navTo } from '../helpers/dashboard';
import { createBusiness } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Clock, createUser, totpCode } from '../helpers/users';

const clock = new Clock();
let svc: TestService;
let browser: Browser;
/** A fresh database, a service and Chromium take a while on a loaded machine. */
const SETUP_MS = 180_000;
const PER_PAGE = 20;

beforeAll(async () => {
  svc = await startTestService({ now: clock.now });
  browser = (await launchBrowser()) as Browser;
}, SETUP_MS);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The business ids the table shows, top to bottom. */
async function shownIds(page: Page): Promise<number[]> {
  const cells = await page.locator('table tbody tr td:first-child .muted').allTextContents();
  return cells.map((t) => Number(t.replace('#', '')));
}

describeBrowser('cursor paging in Chromium', () => {
  it('walks the businesses with Next and Previous while new ones arrive, none twice, none missing', async () => {
    const made: number[] = [];
    for (let i = 0; i < PER_PAGE + 5; i++) made.push((await createBusiness(svc, { name: `Paged Shop ${i + 1}` })).id);
    const newestFirst = [...made].reverse();
    const operator = await createUser(svc, { role: 'operator_admin', totp: true });
    const page = await dashboardPage(browser, svc);
    clock.advance(30_000);
    await signIn(page, operator.email, operator.password, totpCode(svc));
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await navTo(page, 'Businesses');
    await page.getByRole('heading', { name: 'Businesses' }).waitFor();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText(`Page 1 · ${PER_PAGE + 5} in all`).waitFor();
    expect(await shownIds(page)).toEqual(newestFirst.slice(0, PER_PAGE));
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    // Businesses created while page 1 is on screen would push page 2 along under page numbers.
    for (let i = 0; i < 3; i++) await createBusiness(svc, { name: `Late Shop ${i + 1}` });
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2').waitFor();
    await page.getByRole('link', { name: 'Paged Shop 1', exact: true }).waitFor();
    expect(await shownIds(page)).toEqual(newestFirst.slice(PER_PAGE));
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    // Back on the first page, the list is read again from its top: the late businesses lead it now.
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText(`Page 1 · ${PER_PAGE + 8} in all`).waitFor();
    await page.getByRole('link', { name: 'Late Shop 3', exact: true }).waitFor();
    expect((await shownIds(page)).slice(3)).toEqual(newestFirst.slice(0, PER_PAGE - 3));
    await page.context().close();
  });

  it("pages a merchant owner's audit log by cursor, the oldest entries on the last page", async () => {
    const business = (await createBusiness(svc, { name: 'Audit Trail Shop' })).id;
    for (let i = 0; i < 28; i++) expect((await svc.admin.patch(`/v1/admin/businesses/${business}`, { name: `Audit Trail Shop ${i}` })).status).toBe(200);
    const owner = await createUser(svc, { role: 'merchant_owner', business_id: business });
    const page = await dashboardPage(browser, svc);
    await signIn(page, owner.email, owner.password);
    await page.getByRole('link', { name: 'Audit log' }).click();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await pager.getByText('Page 1 · 29 in all').waitFor();
    const firstPage = await page.locator('table tbody tr').count();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2').waitFor();
    // the oldest change, read as one: the first rename
    await page.getByText('name: Audit Trail Shop → Audit Trail Shop 0', { exact: true }).waitFor();
    expect(firstPage + (await page.locator('table tbody tr').count())).toBe(29);
    await page.context().close();
  });
});
