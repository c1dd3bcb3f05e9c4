// Proves the shell commands of the README and of the guides under docs/ still work: every shell block not marked as an illustration runs in bash against a real sandbox service, README first, then each guide in name order, and `npm run mock -- -p N` serves.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, freePort } from '../helpers/notify-fixtures';
import { startListening } from '../helpers/prism';
import { OPERATOR_KEY, startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { accessToken } from '../helpers/merchants';

const ROOT = path.resolve(__dirname, '..', '..');
/** The README, then every guide directly under docs/ (the contract pages hold no commands). */
const DOCUMENTS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const MARK = '<!-- illustration -->';
const SHELL_FENCE = /^```(?:sh|bash|shell)\s*$/;
/** The address the README's commands use, replaced by the test service's own. */
const README_BASE = 'http://localhost:8080';

export interface ShellBlock {
  /** the document, relative to the repository root */
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  script: string;
  illustration: boolean;
}

/** The fenced shell blocks of a markdown text (indented ones inside lists too), each with its mark. */
export function shellBlocks(markdown: string, file = 'README.md'): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const indent = lines[i].length - lines[i].trimStart().length;
    if (!SHELL_FENCE.test(lines[i].trim())) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== '```') body.push(lines[j++].slice(indent));
    if (j === lines.length) throw new Error(`${file} line ${i + 1}: shell block never closed`);
    blocks.push({ file, line: i + 1, script: body.join('\n'), illustration: i > 0 && lines[i - 1].trim() === MARK });
    i = j;
  }
  return blocks;
}

describe('the block reader', () => {
  const md = ['# t', '', MARK, '```sh', 'npm start', '```', '', '1. step', '', '   ```sh', '   echo "$A"', '     echo two', '   ```', '```js', 'x()', '```', ''].join('\n');

  it('finds shell blocks with their line, indented ones dedented, marks read from the line above, other languages ignored', () => {
    expect(shellBlocks(md)).toEqual([
      { file: 'README.md', line: 4, script: 'npm start', illustration: true },
      { file: 'README.md', line: 10, script: 'echo "$A"\n  echo two', illustration: false },
    ]);
  });

  it('refuses a block that is never closed', () => {
    expect(() => shellBlocks('```sh\nnpm test\n', 'a-guide.md')).toThrow('a-guide.md line 1: shell block never closed');
  });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function bash(script: string, env: Record<string, string>, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, env, timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('the README and the guides against a sandbox service with its demo merchant (as `npm start` makes it)', () => {
  const runnable = DOCUMENTS.flatMap((f) => shellBlocks(readFileSync(path.join(ROOT, f), 'utf8'), f)).filter((b) => !b.illustration);
  let svc: TestService;
  let demo: { api_key: string; api_secret: string; business_id: number };
  let token: string;

  beforeAll(async () => {
    svc = await startTestService({ env: { SEED_DEMO: 'true' } });
    demo = JSON.parse(readFileSync(path.join(svc.config.dataDir, 'demo-credentials.json'), 'utf8'));
    token = await accessToken(svc, demo.api_key, demo.api_secret);
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('finds the blocks it must run: the first requests in the README, the operator set-up in its guide', () => {
    expect(runnable.filter((b) => b.file === 'README.md').map((b) => b.script.split(/\s/)[0])).toContain('curl');
    expect(runnable.filter((b) => b.file === 'docs/operator-setup.md').map((b) => b.script.split(/\s/)[0])).toContain('BUSINESS=$(npm');
  });

  // One test per block, in order: a later block may rely on what an earlier one made.
  it.each(runnable.map((b) => [`${b.file} line ${b.line}`, b] as const))('%s runs and no answer is an error', async (_where, block) => {
    const script = block.script.replaceAll(README_BASE, svc.url).replaceAll('<api_key>', demo.api_key).replaceAll('<api_secret>', demo.api_secret);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PAYCOLLECT_URL: svc.url, OPERATOR_API_KEY: OPERATOR_KEY, TOKEN: token };
    const r = await bash(script, env, 120_000);
    const context = `${block.file} line ${block.line}\n${script}\nexit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect({ code: r.code, context }).toEqual({ code: 0, context });
    expect(r.stdout).not.toMatch(/"status":\s*"error"/);
  }, 180_000);

  it('left what the documents say they make: the operator set-up beside the demo merchant, the first payment and the shared payment link', async () => {
    const businesses = (await svc.admin.get('/v1/admin/businesses?per_page=100')).body.data as { id: number; name: string }[];
    const kampala = businesses.filter((b) => b.name === 'Kampala Books');
    expect(kampala).toHaveLength(1);
    expect(kampala[0].id).not.toBe(demo.business_id);
    const mids = (await svc.admin.get(`/v1/admin/businesses/${kampala[0].id}/mids`)).body.data;
    expect(mids).toEqual([expect.objectContaining({ payment_method: 'MOBILE_MONEY', currency: 'UGX', service_type: 'sandbox' })]);
    const rates = (await svc.admin.get('/v1/admin/fx-rates')).body.data as { base: string; quote: string; rate: number }[];
    expect(rates).toContainEqual(expect.objectContaining({ base: 'USD', quote: 'UGX', rate: 3700 }));
    const payment = await svc.merchant(token).get('/v1/collections?merchant_reference=ORD-0001-2025');
    expect(payment.body.data).toEqual([expect.objectContaining({ merchant_reference: 'ORD-0001-2025', request_currency: 'UGX', request_amount: 50000 })]);
    // the payment link the README shares: fixed, by mobile money, active, its page open to a customer
    const links = (await svc.merchant(token).get('/v1/payment-links')).body.data as { url: string }[];
    expect(links).toEqual([expect.objectContaining({ title: 'Tailoring deposit', amount: 25000, currency: 'UGX', payment_methods: ['MOBILE_MONEY'], state: 'active', qr_png_url: `${links[0]?.url}/qr.png` })]);
    expect((await fetch(links[0].url)).status).toBe(200);
    // the payment in TZS, converted into the UGX wallet as its quote said
    const converted = (await svc.merchant(token).get('/v1/collections?merchant_reference=ORD-0002-TZS')).body.data[0];
    const quote = await svc.services.db.one("SELECT quote_id, account_amount_minor, total_credit_minor, fx_rate::text FROM fx_quotes WHERE request_currency = 'TZS'");
    expect(converted).toMatchObject({ request_currency: 'TZS', account_currency: 'UGX', account_amount: Number(quote.account_amount_minor) / 100, total_credit: Number(quote.total_credit_minor) / 100, fx_rate: Number(quote.fx_rate), fx_markup: 0, fx_source: 'sandbox' });
  });

  it('left the money-out walk done, by curl and by the SDK: each refund and payout of the demo merchant COMPLETED, the wallet down by exactly them', async () => {
    const merchant = svc.merchant(token);
    const secret = { headers: { 'secret-key': demo.api_secret } };
    const ended = (read: () => Promise<{ transaction_status: string } | undefined>) =>
      eventually(async () => {
        const r = await read();
        return r && r.transaction_status !== 'PENDING' && r.transaction_status !== 'PROCESSING' ? r : undefined;
      }, 30_000, 'a final state');
    for (const [reference, amount] of [['RFD-0001-2025', 20000], ['RFD-0002-2025', 5000]] as const) {
      const refund = await ended(async () => (await merchant.get(`/v1/refunds?merchant_reference=${reference}`)).body.data[0]);
      expect(refund).toMatchObject({ merchant_reference: reference, amount, currency: 'UGX', transaction_status: 'COMPLETED' });
    }
    for (const [reference, amount] of [['PAY-0001-2025', 10000], ['PAY-0002-2025', 7500]] as const) {
      const payout = await ended(async () => (await merchant.get(`/v1/disbursements?merchant_reference=${reference}`, secret)).body.data[0]);
      expect(payout).toMatchObject({ merchant_reference: reference, amount, currency: 'UGX', transaction_status: 'COMPLETED' });
    }
    // two payments (50,000 and 30,000 less the demo's 2.5 % fee), two refunds and two payouts without a fee
    const wallet = (await merchant.get('/v1/data/wallets/UGX/balance')).body.data;
    expect(wallet).toMatchObject({ available_balance: 80000 - 2000 - 20000 - 5000 - 10000 - 7500, refund_held_balance: 0, disbursement_held_balance: 0 });
  }, 90_000);
});

it('`npm run mock -- -p N`, as docs/clients.md shows it, serves the mock on that port', async () => {
  const shown = /`npm run mock -- -p (\d+)`/.exec(readFileSync(path.join(ROOT, 'docs', 'clients.md'), 'utf8'));
  expect(shown).not.toBeNull();
  const port = await freePort();
  const mock = await startListening('npm', ['run', 'mock', '--', '-p', String(port)], `http://127.0.0.1:${port}`);
  try {
    const res = await fetch(`http://127.0.0.1:${port}/v1/sandbox/scenarios`, { headers: { authorization: 'JWT mock' } });
    expect(res.status).toBe(200);
  } finally {
    mock.stop();
  }
}, 120_000);
