// `npm run fakes`: the fake processors on fixed local ports, so that anyone can run APP_ENV=live end to
// end on one machine (README, "Live on one machine"). Prints each fake's URL and the MID credentials
// that work with it; stops on Ctrl-C or SIGTERM.
import { BTCPAY_REDELIVERY_MS, FakeBtcpay } from './btcpay';
import { FakePaystack, PAYSTACK_RETRY_MS } from './paystack';

const port = (name: string, fallback: number) => {
  const raw = process.env[name];
  const n = raw ? Number(raw) : fallback;
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number`);
  return n;
};

async function main(): Promise<void> {
  const paystack = new FakePaystack({ secretKey: process.env.FAKE_PAYSTACK_SECRET_KEY ?? 'sk_test_paycollectfakepaystack0001', webhookRetryMs: PAYSTACK_RETRY_MS });
  const btcpay = new FakeBtcpay({
    storeId: 'FakeStore000000000000000000000000',
    apiKey: process.env.FAKE_BTCPAY_API_KEY ?? 'fakebtcpayapikey0000000000000001',
    webhookSecret: process.env.FAKE_BTCPAY_WEBHOOK_SECRET ?? 'fake-btcpay-webhook-secret',
    redeliveryMs: BTCPAY_REDELIVERY_MS,
    confirmAfterMs: 5_000,
  });
  await paystack.start(port('FAKE_PAYSTACK_PORT', 4101));
  await btcpay.start(port('FAKE_BTCPAY_PORT', 4102));
  const out = {
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
  const stop = () => {
    void Promise.all([paystack.stop(), btcpay.stop()]).then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((e: Error) => {
  process.stderr.write(`fakes: ${e.message}\n`);
  process.exit(1);
});
