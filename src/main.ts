// `npm start`: configuration from the environment, then one service process until SIGTERM/SIGINT.
import { ConfigError, loadConfig, refuseUnsafeLive } from './config';
import { limitHeapGrowth } from './heap';
import { writeStdout } from './log';
import { startService } from './server';
import type { RunningService } from './server';

async function main() {
  let config;
  try {
    config = loadConfig();
    refuseUnsafeLive(config);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`paycollect: configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  limitHeapGrowth(config.heapGrowingPercent);
  // Signals are taken before start-up: one that arrives while the service starts (or just as it turns
  // ready) stops it cleanly once it is up, instead of killing the process mid-write.
  let service: RunningService | null = null;
  let signalled: string | null = null;
  let stopping = false;
  const stop = () => {
    if (!service || !signalled || stopping) return;
    stopping = true;
    service.services.log.info('shutting down', { signal: signalled });
    service.close().then(() => process.exit(0), () => process.exit(1));
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      signalled ??= signal;
      stop();
    });
  }
  service = await startService({ config });
  if (config.generated.operatorApiKey) {
    writeStdout(`\nOperator API key (shown once, kept in ${config.dataDir}/operator-key): ${config.operatorApiKey}\n`);
  }
  if (service.firstOperator) {
    const f = service.firstOperator;
    writeStdout(
      `\nDashboard operator account (shown once, kept in ${f.file}; two-factor set-up at first sign-in):\n` +
        `  ${config.publicBaseUrl}/dashboard  email: ${f.email}  password: ${f.password}\n`,
    );
  }
  if (service.demoUser) {
    const u = service.demoUser;
    writeStdout(`\nDemo merchant's dashboard sign-in (also in ${u.file}):\n  email: ${u.email}  password: ${u.password}\n`);
  }
  if (service.demo) {
    const d = service.demo;
    writeStdout(
      `\nDemo merchant created (credentials also in ${d.file}):\n  api_key:    ${d.api_key}\n  api_secret: ${d.api_secret}\n` +
        `${d.mids}: it can refund and pay out at once (designated values: GET /v1/sandbox/scenarios).\n` +
        `Get an access token:\n  ${d.curl}\n`,
    );
  }
  writeStdout(`\nPayCollect ${config.appEnv} listening on ${config.publicBaseUrl} (docs: ${config.publicBaseUrl}/docs, dashboard: ${config.publicBaseUrl}/dashboard)\n\n`);
  stop();
}

main().catch((e) => {
  process.stderr.write(`paycollect: failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
