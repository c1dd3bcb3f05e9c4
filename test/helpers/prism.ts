// Prism (the mock and the validating proxy) as a child process on a free port, stopped with its group.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './notify-fixtures';

const ROOT = path.resolve(__dirname, '..', '..');
const START_TIMEOUT_MS = 60_000;

export interface Prism {
  url: string;
  /** everything Prism printed, for the failure message of a test */
  output: string[];
  stop(): void;
}

/** `prism mock <spec>` or `prism proxy <spec> <upstream> ...`, answering once it listens. */
export async function startPrism(args: string[]): Promise<Prism> {
  const port = await freePort();
  return startListening(path.join(ROOT, 'node_modules', '.bin', 'prism'), [...args, '-p', String(port), '-h', '127.0.0.1'], `http://127.0.0.1:${port}`);
}

/** Any command that ends up serving HTTP at url (its own process group), answering once something answers there. */
export async function startListening(command: string, args: string[], url: string): Promise<Prism> {
  const output: string[] = [];
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString('utf8')));
  const stop = () => {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      await fetch(url + '/healthz');
      return { url, output, stop };
    } catch {
      if (Date.now() > deadline || child.exitCode !== null) {
        stop();
        throw new Error(`${path.basename(command)} ${args.join(' ')} did not start: ${output.join('')}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
