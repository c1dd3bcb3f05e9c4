// What the disbursements wing is built from (src/wiring.ts hands it in): the narrow parts its flows use,
// nothing more. Every flow of the wing (request.ts, approvals.ts, state-change.ts, processor-calls.ts)
// takes the same parts.
import type { Config } from '../config';
import type { Db } from '../db';
import type { Logger } from '../log';
import type { LedgerService } from '../ledger/ledger';
import type { NotificationService } from '../notifications/notifications';
import type { AuditService } from '../people/audit';
import type { AmountAsked, AmountCheck } from '../processors/amounts';
import type { CallContext, PayoutConnector } from '../processors/types';

/** What the disbursement service is built from: the narrow parts it uses, nothing more. */
export interface DisbursementParts {
  db: () => Db;
  config: Pick<Config, 'processors' | 'webhookRetryScheduleMs' | 'publicBaseUrl' | 'appEnv' | 'ownerApprovalWaitHours'>;
  log: Logger;
  now: () => Date;
  /** the payout side of a service type's processor (the simulator's for `sandbox`); null when it offers none */
  payoutsOf: (serviceType: string) => PayoutConnector | null;
  /** whether a service type's processor can move an amount exactly (src/processors/amounts.ts) */
  amountCheck: (serviceType: string, asked: AmountAsked) => AmountCheck;
  /** a MID's sealed credentials, opened (never logged) */
  openCredentials: (sealed: string | null) => CallContext['credentials'];
  /** the next round-robin turn (from 1) among a business's MIDs of one method, currency and rank */
  takeTurn: (businessId: number, method: 'MOBILE_MONEY' | 'BANK', currency: string, rank: number) => Promise<number>;
  kick: (worker: string) => void;
  /** the ledger wing posts every journal (src/ledger/) */
  ledger: Pick<LedgerService, 'postJournal'>;
  /** the notifications wing writes every webhook and email to the outbox (src/notifications/) */
  notifications: Pick<NotificationService, 'enqueueWebhook' | 'enqueueEmails' | 'emailOwners'>;
  /** the people wing writes every audit entry (src/people/) */
  audit: Pick<AuditService, 'tokenAction'>;
}
