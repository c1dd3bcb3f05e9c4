// A live deployment (APP_ENV live) refunding through M-Pesa: the project's fake Daraja over real HTTP, a
// webhook receiver, the service on the test's clock, and a merchant whose M-Pesa MID (KES) holds the
// credentials a refund needs (a Transaction Status query and a Reversal); plus its completed payments.
import { FakeMpesa } from '../fakes/mpesa';
import { liveDeployment } from './live';
import type { LiveDeployment, LiveMerchant } from './live';
import { expectOk } from './merchants';
import { eventually } from './notify-fixtures';
import type { Clock } from './users';

export type MpesaRefunds = LiveDeployment<FakeMpesa>;

/** Starts the fake, the receiver and the service on `clock` (with `env` besides), and sets the merchant up; what started is stopped if a step fails. */
export async function mpesaRefunds(clock: Clock, env: Record<string, string> = {}): Promise<MpesaRefunds> {
  const fake = new FakeMpesa({ answerAfterMs: 10 });
  return liveDeployment(fake, { baseUrlVariable: 'MPESA_BASE_URL', env, now: clock.now, mid: { serviceType: 'mpesa', currency: 'KES', credentials: fake.refundCredentials() } });
}

/** A COMPLETED collection of KES 1,500 from `phone`, under `merchantReference`; its gateway reference. */
export async function collectedKes(m: LiveMerchant, merchantReference: string, phone = '254708374149'): Promise<string> {
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'KES', amount: 1500, payment_method: 'MOBILE_MONEY', account_number: phone, merchant_reference: merchantReference, narration: 'Order for live goods',
  });
  const reference = expectOk(res).gateway_reference;
  await eventually(async () => expectOk(await m.client.get(`/v1/collections/${reference}`)).transaction_status === 'COMPLETED', 15_000, 'collected');
  return reference;
}
