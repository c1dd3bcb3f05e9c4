// A real SMTP server in the test process (smtp-server): plain SMTP on 127.0.0.1, no TLS or AUTH, that
// keeps every message it accepts. `answer` decides each message: accept it, refuse it with a 451, or hold
// it unanswered (the sender hangs in the middle of DATA, as behind a dead link).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  from: string;
  to: string[];
  /** the message as sent (headers and body) */
  raw: string;
  /** the same with quoted-printable soft breaks and escapes undone, for reading the text */
  text: string;
}

export type Answer = 'accept' | 'refuse' | 'hold';

export interface TestSmtp {
  port: number;
  /** the messages accepted, in order */
  mails: Mail[];
  /** messages received, whatever the answer */
  received: () => number;
  close: () => Promise<void>;
}

/** A message's text with quoted-printable soft breaks and escapes undone. */
export function readable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Starts on `port` (0: any free port) and answers each message as `answer` says (default: accept). */
export async function startSmtp(opts: { port?: number; answer?: (index: number) => Answer } = {}): Promise<TestSmtp> {
  const mails: Mail[] = [];
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const answer = opts.answer?.(received) ?? 'accept';
        received++;
        if (answer === 'hold') return;
        if (answer === 'refuse') return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 451 }));
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw, text: readable(raw) });
        callback();
      });
    },
  });
  // a sender killed or cut mid-message resets its socket, which smtp-server reports as the server's
  // 'error' event: expected in the fault tests, and fatal to the test process if nobody listens
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', () => resolve()));
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
