// `npm run fakes`: every fake processor on a fixed local port, so that anyone can run APP_ENV=live end
// to end on one machine (docs/processors.md, "Live processors on one machine"). Prints each fake's URL and the MID
// credentials that work with it; stops on Ctrl-C or SIGTERM. The customer of the mobile-money fakes
// answers after FAKES_ANSWER_MS (default 5000), so a collection is seen PENDING first.
import { BTCPAY_REDELIVERY_MS, FakeBtcpay } from './btcpay';
import { FakeMpesa } from './mpesa';
import { FakeMtnMomo } from './mtn-momo';
import { FakePaystack, PAYSTACK_RETRY_MS } from './paystack';
import type { FakeServer } from './web';

export interface RunningFakes {
  mtn: FakeMtnMomo;
  mpesa: FakeMpesa;
  paystack: FakePaystack;
  btcpay: FakeBtcpay;
  stop(): Promise<void>;
}

export interface FakePorts {
  paystack: number;
  btcpay: number;
  mtn: number;
  mpesa: number;
}

export async function startFakes(ports: FakePorts, answerAfterMs: number): Promise<RunningFakes> {
  const mtn = new FakeMtnMomo({ answerAfterMs, callbackMethod: 'PUT' });
  const mpesa = new FakeMpesa({ answerAfterMs });
  const paystack = new FakePaystack({ secretKey: process.env.FAKE_PAYSTACK_SECRET_KEY ?? 'sk_test_paycollectfakepaystack0001', webhookRetryMs: PAYSTACK_RETRY_MS });
  const btcpay = new FakeBtcpay({
    storeId: 'FakeStore000000000000000000000000',
    apiKey: process.env.FAKE_BTCPAY_API_KEY ?? 'fakebtcpayapikey0000000000000001',
    webhookSecret: process.env.FAKE_BTCPAY_WEBHOOK_SECRET ?? 'fake-btcpay-webhook-secret',
    redeliveryMs: BTCPAY_REDELIVERY_MS,
    confirmAfterMs: 5_000,
  });
  await paystack.start(ports.paystack);
  await btcpay.start(ports.btcpay);
  await mtn.start(ports.mtn);
  await mpesa.start(ports.mpesa);
  const all: FakeServer[] = [mtn, mpesa, paystack, btcpay];
  return { mtn, mpesa, paystack, btcpay, stop: async () => void (await Promise.all(all.map((f) => f.stop()))) };
}

function number(name: string, fallback: number, max = 65535): number {
  const raw = process.env[name];
  const n = raw ? Number(raw) : fallback;
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number up to ${max}`);
  return n;
}

async function main() {
  const ports = {
    paystack: number('FAKE_PAYSTACK_PORT', 4101),
    btcpay: number('FAKE_BTCPAY_PORT', 4102),
    mtn: number('FAKE_MTN_MOMO_PORT', 4103),
    mpesa: number('FAKE_MPESA_PORT', 4104),
  };
  const fakes = await startFakes(ports, number('FAKES_ANSWER_MS', 5000, 3_600_000));
  const { mtn, mpesa, paystack, btcpay } = fakes;
  const out = {
    mtn_momo: {
      service_env: `MTN_MOMO_BASE_URL=${mtn.url}`,
      mid_credentials: mtn.refundCredentials(),
      test_numbers: '46733123450 failed, 46733123451 rejected, 46733123452 expired, 46733123454 never answers, others succeed',
    },
    mpesa: {
      service_env: `MPESA_BASE_URL=${mpesa.url}`,
      mid_credentials: mpesa.payoutCredentials(),
      test_numbers: '254708374149 succeeds, 254711001032 cancelled, 254711000001 insufficient balance, 254711000000 never answers',
    },
    paystack: {
      url: paystack.url,
      service_env: `PAYSTACK_BASE_URL=${paystack.url}`,
      mid_credentials: { secret_key: paystack.secretKey },
      set_webhook_url: `curl -s -X POST ${paystack.url}/__fake/webhook-url -H 'content-type: application/json' -d '{"url":"http://localhost:8080/callbacks/paystack/mids/<mid_id>"}'`,
    },
    btcpay: {
      url: btcpay.url,
      mid_credentials: { server_url: btcpay.url, store_id: btcpay.storeId, api_key: btcpay.apiKey, webhook_secret: btcpay.webhookSecret },
      set_webhook_url: `curl -s -X POST ${btcpay.url}/__fake/webhook-url -H 'content-type: application/json' -d '{"url":"http://localhost:8080/callbacks/btcpay/mids/<mid_id>"}'`,
    },
  };
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  const stop = () => void fakes.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((e: Error) => {
    process.stderr.write(`fakes: ${e.message}\n`);
    process.exit(1);
  });
}
