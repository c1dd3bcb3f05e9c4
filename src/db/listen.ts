// A session that LISTENs on one channel, re-opened after a failure (real PostgreSQL: a connection of its own).
import type { Db } from './index';
import type { Logger } from '../log';

const RELISTEN_MS = 1000;

export interface ListenHandlers {
  /** a NOTIFY arrived on the channel */
  notice(payload: string): void;
  /** the session listens (again): notices sent while it did not were lost */
  listening?(): void;
  /** the session was lost: notices may be missed until listening() */
  lost?(): void;
}

export function listenOn(db: Db, channel: string, h: ListenHandlers, log: Logger): { stop(): Promise<void> } {
  let stopped = false;
  let connection: { done(): void } | null = null;
  let retry: NodeJS.Timeout | null = null;
  // one pending re-listen at most: a lost session may report more than one error (the server's
  // termination notice, then the closed socket), and each must not open a listening session of its own
  const again = () => {
    if (retry) clearTimeout(retry);
    retry = stopped ? null : setTimeout(listen, RELISTEN_MS);
  };
  const listen = async () => {
    try {
      const c = await db.connect({ direct: true });
      connection = c;
      c.client.on('notification', (m) => h.notice(m.payload ?? ''));
      let lost = false;
      c.client.on('error', (err) => {
        if (lost) return;
        lost = true;
        log.warn('listener lost', { channel, err });
        connection = null;
        h.lost?.();
        again();
      });
      await c.none('LISTEN $1:name', [channel]);
      if (stopped) c.done();
      else h.listening?.();
    } catch (err) {
      log.warn('listener failed', { channel, err });
      again();
    }
  };
  void listen();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      connection?.done();
      connection = null;
    },
  };
}
