// Proves `npm start`'s entry point serves /healthz on the embedded database, stops cleanly on SIGTERM, and keeps
// its data across a restart on the same DATA_DIR. (How fast it starts is measured by `npm run bench`, not here.)
// Alike in every pass: the started process runs on its own embedded database (DATABASE_URL empty).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

const ROOT = path.resolve(__dirname, '..');
const OPERATOR = 'op_process_test_key_0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Children still running: a failed test kills them, so no service outlives the test run. */
const running = new Set<ChildProcess>();
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

async function start(dataDir: string, port: number): Promise<{ child: ChildProcess; output: () => string }> {
  let out = '';
  // as `npm start` runs it: one node process, so SIGTERM reaches the service's own handler
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, OPERATOR_API_KEY: OPERATOR, SEED_DEMO: 'false', DATABASE_URL: '', NODE_OPTIONS: '' },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 80_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n` + out);
    if (Date.now() > deadline) throw new Error('no /healthz 200:\n' + out);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

// Two embedded initdb runs take seconds on a quiet machine and far longer on a loaded one: the budget is generous.
it('starts on the embedded database, keeps data across a restart, and stops on SIGTERM', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paycollect-proc-'));
  const port = await freePort();
  const admin = { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json', accept: 'application/json' };

  const first = await start(dataDir, port);
  const created = await fetch(`http://127.0.0.1:${port}/v1/admin/fx-rates`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({ base: 'USD', quote: 'UGX', rate: 3700.5 }),
  });
  expect(created.status).toBe(200);
  // the first operator's dashboard password is printed once, and kept in DATA_DIR
  const operatorUser = JSON.parse(readFileSync(path.join(dataDir, 'operator-user.json'), 'utf8'));
  expect(first.output()).toContain(operatorUser.password);
  expect(await stop(first.child)).toBe(0);

  const second = await start(dataDir, port);
  try {
    const rates = await (await fetch(`http://127.0.0.1:${port}/v1/admin/fx-rates`, { headers: admin })).json();
    expect(rates.data).toEqual([expect.objectContaining({ base: 'USD', quote: 'UGX', rate: 3700.5 })]);
    expect(second.output()).not.toContain(OPERATOR);
    expect(second.output()).not.toContain(operatorUser.password);
  } finally {
    expect(await stop(second.child)).toBe(0);
  }
}, 180_000);
