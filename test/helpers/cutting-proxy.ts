// A TCP proxy in front of PostgreSQL that can lose one connection at a chosen moment, as a primary that
// dies or a network that drops does: before a statement reaches the server (nothing happened), or after
// the server has run it and answered, with the answer thrown away (it happened; the client cannot know).
import net from 'node:net';

export type CutMoment = 'before-sending' | 'after-answer';

export interface CuttingProxy {
  port: number;
  /**
   * Arms one cut: the next client message containing `pattern` is dropped with its connection
   * (before-sending), or forwarded and its whole answer dropped with the connection (after-answer).
   * Resolves once the cut happened.
   */
  cut(pattern: string, moment: CutMoment): Promise<void>;
  /** While on, a new connection is closed as soon as it opens (a proxy with no server behind it). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/** The server has finished with a message (and committed, outside a transaction): ReadyForQuery ends the chunk. */
function endsWithReadyForQuery(chunk: Buffer): boolean {
  const at = chunk.length - 6;
  return at >= 0 && chunk[at] === 0x5a && chunk.readUInt32BE(at + 1) === 5;
}

export async function startCuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  let armed: { pattern: Buffer; moment: CutMoment; done: () => void } | null = null;
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    let swallowing: (() => void) | null = null;
    client.on('data', (chunk: Buffer) => {
      const plan = armed && chunk.includes(armed.pattern) ? armed : null;
      if (plan) {
        armed = null;
        if (plan.moment === 'before-sending') {
          drop();
          plan.done();
          return;
        }
        swallowing = plan.done;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!swallowing) return void client.write(chunk);
      if (!endsWithReadyForQuery(chunk)) return;
      drop();
      swallowing();
    });
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: (pattern, moment) =>
      new Promise<void>((done) => {
        armed = { pattern: Buffer.from(pattern), moment, done };
      }),
    refuse: (on) => {
      refusing = on;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
