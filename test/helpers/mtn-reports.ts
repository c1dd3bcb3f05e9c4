// A live deployment (APP_ENV live) collecting through MTN MoMo, for the tests of its partner report: the
// project's fake MTN over real HTTP, a webhook receiver, the service, and a merchant with a UGX MTN MoMo
// MID; plus its completed requests to pay.
import { FakeMtnMomo } from '../fakes/mtn-momo';
import { liveDeployment } from './live';
import type { LiveDeployment } from './live';
import { expectOk } from './merchants';
import { eventually } from './notify-fixtures';

export type MtnReports = LiveDeployment<FakeMtnMomo>;

/** Starts the fake, the receiver and the service, and sets the merchant up; what started is stopped if a step fails. */
export async function mtnReports(): Promise<MtnReports> {
  const fake = new FakeMtnMomo();
  return liveDeployment(fake, { baseUrlVariable: 'MTN_MOMO_BASE_URL', mid: { serviceType: 'mtn_momo', currency: 'UGX', credentials: fake.credentials() } });
}

/** A COMPLETED request to pay of UGX 50,000 under `merchantReference`: our reference at MTN (X-Reference-Id) and its gateway reference. */
export async function collectedUgx(live: Pick<MtnReports, 'fake' | 'm'>, merchantReference: string): Promise<{ reference: string; gateway: string }> {
  const res = expectOk(await live.m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX', amount: 50000, payment_method: 'MOBILE_MONEY', account_number: '256772123456', merchant_reference: merchantReference, narration: 'Order for live goods',
  }));
  await eventually(async () => expectOk(await live.m.client.get(`/v1/collections/${res.gateway_reference}`)).transaction_status === 'COMPLETED', 15_000, 'completed');
  return { reference: live.fake.byExternalId(res.gateway_reference)!.reference, gateway: res.gateway_reference };
}
