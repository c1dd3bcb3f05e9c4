// What the refunds wing is built from (src/wiring.ts hands it in): the narrow parts its flows use,
// nothing more. Every flow of the wing (request.ts, state-change.ts, processor-calls.ts) takes the same parts.
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../log';
import type { AmountAsked, AmountCheck } from '../processors/amounts';
import type { CallContext, RefundConnector } from '../processors/types';

/** What the refund service is built from: the narrow parts it uses, nothing more. */
export interface RefundParts {
  /** the database (inside an audited change, that change's transaction) */
  db: () => Db;
  config: Pick<Config, 'processors' | 'webhookRetryScheduleMs' | 'publicBaseUrl'>;
  log: Logger;
  now: () => Date;
  /** the refund side of a service type's processor (the simulator's for `sandbox`); null when it offers none */
  refundsOf: (serviceType: string) => RefundConnector | null;
  /** whether a service type's processor can move an amount exactly (src/processors/amounts.ts) */
  amountCheck: (serviceType: string, asked: AmountAsked) => AmountCheck;
  /** a MID's sealed credentials, opened (never logged) */
  openCredentials: (sealed: string | null) => CallContext['credentials'];
  /** run a named worker soon, once the current change commits */
  kick: (worker: string) => void;
}
