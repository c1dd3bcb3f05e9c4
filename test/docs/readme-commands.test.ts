// Proves the README's shell commands still work: every shell block not marked as an illustration runs in bash against a real sandbox service, in README order, and `npm run mock -- -p N` serves.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../helpers/notify-fixtures';
import { startListening } from '../helpers/prism';
import { OPERATOR_KEY, startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { accessToken } from '../helpers/merchants';

const ROOT = path.resolve(__dirname, '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const MARK = '<!-- illustration -->';
const SHELL_FENCE = /^```(?:sh|bash|shell)\s*$/;
/** The address the README's commands use, replaced by the test service's own. */
const README_BASE = 'http://localhost:8080';

export interface ShellBlock {
  /** 1-based line of the opening fence */
  line: number;
  script: string;
  illustration: boolean;
}

/** The fenced shell blocks of a markdown text (indented ones inside lists too), each with its mark. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const indent = lines[i].length - lines[i].trimStart().length;
    if (!SHELL_FENCE.test(lines[i].trim())) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j].trim() !== '```') body.push(lines[j++].slice(indent));
    if (j === lines.length) throw new Error(`README line ${i + 1}: shell block never closed`);
    blocks.push({ line: i + 1, script: body.join('\n'), illustration: i > 0 && lines[i - 1].trim() === MARK });
    i = j;
  }
  return blocks;
}

describe('the block reader', () => {
  const md = ['# t', '', MARK, '```sh', 'npm start', '```', '', '1. step', '', '   ```sh', '   echo "$A"', '     echo two', '   ```', '```js', 'x()', '```', ''].join('\n');

  it('finds shell blocks with their line, indented ones dedented, marks read from the line above, other languages ignored', () => {
    expect(shellBlocks(md)).toEqual([
      { line: 4, script: 'npm start', illustration: true },
      { line: 10, script: 'echo "$A"\n  echo two', illustration: false },
    ]);
  });

  it('refuses a block that is never closed', () => {
    expect(() => shellBlocks('```sh\nnpm test\n')).toThrow('line 1: shell block never closed');
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

describe('the README against a sandbox service with its demo merchant (as `npm start` makes it)', () => {
  const runnable = shellBlocks(README).filter((b) => !b.illustration);
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

  it('finds the blocks it must run: the first requests and the operator set-up', () => {
    expect(runnable.map((b) => b.script.split(/\s/)[0])).toEqual(expect.arrayContaining(['curl', 'BUSINESS=$(npm']));
  });

  // One test per block, in README order: a later block may rely on what an earlier one made.
  it.each(runnable.map((b) => [b.line, b] as const))('README line %i runs and no answer is an error', async (_line, block) => {
    const script = block.script.replaceAll(README_BASE, svc.url).replaceAll('<api_key>', demo.api_key).replaceAll('<api_secret>', demo.api_secret);
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PAYCOLLECT_URL: svc.url, OPERATOR_API_KEY: OPERATOR_KEY, TOKEN: token };
    const r = await bash(script, env, 120_000);
    const context = `README line ${block.line}\n${script}\nexit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect({ code: r.code, context }).toEqual({ code: 0, context });
    expect(r.stdout).not.toMatch(/"status":\s*"error"/);
  }, 180_000);

  it('left what the README says it makes: the operator set-up beside the demo merchant, and the first payment', async () => {
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
  });
});

it('`npm run mock -- -p N`, as the README shows it, serves the mock on that port', async () => {
  const shown = /`npm run mock -- -p (\d+)`/.exec(README);
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
