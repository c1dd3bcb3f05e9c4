// Tests that need the real PostgreSQL server or Chromium: decided when the file loads, so that outside CI
// a missing one shows the tests as skipped, with one line saying why (an early return would count as a
// pass). With CI=true they always run, and a missing server or browser fails them.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CHROMIUM } from './browser';
import { SHARED_PG_URL } from './db';

const CI = process.env.CI === 'true';
const ROOT = path.resolve(__dirname, '..', '..');

/** Whether the real server answers, asked synchronously (test files are declared synchronously). */
function realServerAnswers(): boolean {
  const probe = `new (require('pg').Client)({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 })
    .connect().then(() => process.exit(0), () => process.exit(1))`;
  return spawnSync(process.execPath, ['-e', probe, SHARED_PG_URL], { cwd: ROOT, timeout: 10_000, stdio: 'ignore' }).status === 0;
}

export interface Requirement {
  /** `describe`, or `describe.skip` with the reason in the block's name */
  describe: (name: string, fn: () => void) => void;
  /** `it`, or `it.skip` with the reason in the test's name */
  it: (name: string, fn: () => Promise<unknown>, timeoutMs?: number) => void;
}

function requirement(available: () => boolean, missing: string): Requirement {
  // In CI nothing is skipped: the tests run and fail on what is missing.
  const run = CI || available();
  if (!run) console.warn(`skipped: ${missing}`);
  return {
    describe: (name, fn) => (run ? describe(name, fn) : describe.skip(`${name} [skipped: ${missing}]`, fn)),
    it: (name, fn, timeoutMs) => (run ? it(name, fn, timeoutMs) : it.skip(`${name} [skipped: ${missing}]`, fn)),
  };
}

/** Debian's packages for the high-availability recipe (deploy/ha): Patroni, etcd, HAProxy and PostgreSQL 15. */
export const HA_BINARIES = ['/usr/bin/patroni', '/usr/bin/etcd', '/usr/sbin/haproxy', '/usr/lib/postgresql/15/bin/postgres'];

/** Debian's HAProxy, the reverse proxy of the trust-proxy test (apt-get install -y haproxy). */
export const HAPROXY = '/usr/sbin/haproxy';

let realServer: Requirement | null = null;
let haproxy: Requirement | null = null;
let haTools: Requirement | null = null;
let chromium: Requirement | null = null;

/** The real PostgreSQL server at PG_URL (default postgres://postgres@127.0.0.1:5432/test). */
export function needsRealServer(): Requirement {
  realServer ??= requirement(realServerAnswers, `no PostgreSQL server at ${SHARED_PG_URL}`);
  return realServer;
}

/** Debian's Chromium (apt-get install -y chromium). */
export function needsChromium(): Requirement {
  chromium ??= requirement(() => existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  return chromium;
}

/** Patroni, etcd and HAProxy (apt-get install -y patroni etcd-server haproxy) besides PostgreSQL 15. */
export function needsHaTools(): Requirement {
  haTools ??= requirement(() => HA_BINARIES.every((b) => existsSync(b)), 'no Patroni, etcd or HAProxy (apt-get install -y patroni etcd-server haproxy)');
  return haTools;
}

/** A command from Debian's archive on PATH (promtool from prometheus, systemd-analyze from systemd). */
export function needsTool(name: string, pkg: string): Requirement {
  const onPath = () => (process.env.PATH ?? '').split(':').some((dir) => existsSync(path.join(dir, name)));
  return requirement(onPath, `${name} not installed (apt-get install -y ${pkg})`);
}

/** HAProxy alone (test/http/trust-proxy.test.ts puts it in front of the service). */
export function needsHaproxy(): Requirement {
  haproxy ??= requirement(() => existsSync(HAPROXY), `no HAProxy at ${HAPROXY} (apt-get install -y haproxy)`);
  return haproxy;
}
