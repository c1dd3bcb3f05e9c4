// `npm run fakes`: every fake processor on a fixed local port, so that APP_ENV=live can run end to end
// on one machine (README, "Live processors on one machine"). Prints each fake's base URL and the MID
// credentials that work with it. Ports: FAKES_PORT (default 4100) and the next three. The customer of
// the mobile-money fakes answers after FAKES_ANSWER_MS (default 5000), so a collection is seen PENDING first.
import { FakeBtcpay } from './btcpay';
import { FakeMpesa } from './mpesa';
import { FakeMtnMomo } from './mtn-momo';
import { FakePaystack } from './paystack';
import type { FakeServer } from './web';

export interface RunningFakes {
  mtn: FakeMtnMomo;
  mpesa: FakeMpesa;
  paystack: FakePaystack;
  btcpay: FakeBtcpay;
  stop(): Promise<void>;
}

export async function startFakes(basePort: number, answerAfterMs: number): Promise<RunningFakes> {
  const mtn = new FakeMtnMomo({ answerAfterMs, callbackMethod: 'PUT' });
  const mpesa = new FakeMpesa({ answerAfterMs });
  const paystack = new FakePaystack();
  const btcpay = new FakeBtcpay();
  const all: FakeServer[] = [mtn, mpesa, paystack, btcpay];
  for (const [i, fake] of all.entries()) await fake.start(basePort === 0 ? 0 : basePort + i);
  return { mtn, mpesa, paystack, btcpay, stop: async () => void (await Promise.all(all.map((f) => f.stop()))) };
}

function number(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

async function main() {
  const fakes = await startFakes(number('FAKES_PORT', 4100), number('FAKES_ANSWER_MS', 5000));
  const lines = [
    `MTN MoMo   MTN_MOMO_BASE_URL=${fakes.mtn.url}`,
    `           MID credentials: ${JSON.stringify(fakes.mtn.credentials())}`,
    `           test numbers: 46733123450 failed, 46733123451 rejected, 46733123452 expired, 46733123454 never answers, others succeed`,
    `M-Pesa     MPESA_BASE_URL=${fakes.mpesa.url}`,
    `           MID credentials: ${JSON.stringify(fakes.mpesa.credentials())}`,
    `           test numbers: 254708374149 succeeds, 254711001032 cancelled, 254711000001 insufficient balance, 254711000000 never answers`,
    `Paystack   ${fakes.paystack.url}  secret key: ${fakes.paystack.secretKey}`,
    `BTCPay     ${fakes.btcpay.url}  store: ${fakes.btcpay.storeId}  API key: ${fakes.btcpay.apiKey}`,
  ];
  process.stdout.write(`Fake processors (Ctrl-C stops them):\n${lines.join('\n')}\n`);
  const stop = () => void fakes.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`fakes: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
