// Proves the SDK's payment link calls against the real service: createPaymentLink answers the link the service stored, getPaymentLink and listPaymentLinks read it back, deactivatePaymentLink and reactivatePaymentLink change its state, and refused input throws a typed PayCollectError naming the field and writes nothing.
import { createPayCollect, PayCollectError, unwrap } from '../../sdk/src';
import type { PayCollect } from '../../sdk/src';
import { setupMerchant } from '../helpers/fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let svc: TestService;
let pay: PayCollect;

beforeAll(async () => {
  svc = await startTestService();
  const m = await setupMerchant(svc);
  pay = createPayCollect({ baseUrl: svc.url, apiKey: m.apiKey, apiSecret: m.apiSecret });
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const links = async () => (await svc.database.db.one('SELECT count(*)::int AS n FROM payment_links')).n as number;

it('creates a link, reads and lists it, deactivates and reactivates it', async () => {
  const { data: link } = await unwrap(pay.createPaymentLink({ title: 'Invoice 42', amount: 25000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'] }));
  expect(link.url).toBe(`${svc.url}/l/${link.link_id}`);
  expect(await svc.database.db.one('SELECT title, amount_minor FROM payment_links WHERE link_id = $1', [link.link_id])).toEqual({ title: 'Invoice 42', amount_minor: 2500000n });
  expect((await unwrap(pay.getPaymentLink(link.link_id))).data).toEqual(link);
  expect((await unwrap(pay.listPaymentLinks({ per_page: 5 }))).data.map((l) => l.link_id)).toEqual([link.link_id]);
  expect((await unwrap(pay.deactivatePaymentLink(link.link_id, 'Paid in cash'))).data).toMatchObject({ state: 'deactivated', deactivation_message: 'Paid in cash' });
  expect((await unwrap(pay.reactivatePaymentLink(link.link_id))).data.state).toBe('active');
});

it('throws a typed error for refused input, writing nothing', async () => {
  const before = await links();
  const refused = await unwrap(pay.createPaymentLink({ title: 'Both', amount: 10, min_amount: 5, max_amount: 20, currency: 'UGX', payment_methods: ['CARD'] })).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(PayCollectError);
  expect((refused as PayCollectError).code).toBe('VALIDATION_ERROR');
  expect(await links()).toBe(before);
});
