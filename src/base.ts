// What every service is built from (src/wiring.ts builds it once): the configuration, the database,
// the log, the clock, the figures and a way to wake a worker. Each service's constructor names this
// plus exactly the other services it calls, so its arguments say what it touches.
import type { Config } from './config';
import type { Db } from './db';
import type { Logger } from './log';
import type { Figures } from './telemetry/figures';

export interface Base {
  config: Config;
  /** inside an audited change, the change's transaction (db/change.ts); else the pool */
  readonly db: Db;
  log: Logger;
  /** the clock; tests and workers pass time in rather than reading it deep inside */
  now: () => Date;
  /** metrics and traces (telemetry off when the caller gave none) */
  figures: Figures;
  /** wake a named worker soon (e.g. right after a commit that gave it work); a no-op until workers start */
  kick: (worker: string) => void;
}

/**
 * A flow of a wing built from the wing's narrow parts and its one state change (a refund's request, a
 * payout's approvals, a money-out adapter): `db` is the database as the flow should use it now (inside an
 * audited change, that change's transaction).
 */
export abstract class WingFlow<P extends { db: () => Db }, C> {
  constructor(
    protected readonly p: P,
    protected readonly changes: C,
  ) {}

  protected get db(): Db {
    return this.p.db();
  }
}
