// The processor-requests wing's door (docs/contract/processors.md): our requests to real processors, every
// kind through the one engine (engine.ts) with an adapter each: collections' charges (charges.ts), refunds
// and payouts (their wings' processor-calls.ts). It is what the rest of the service calls: the workers that
// send and ask, the callbacks, a customer's status query on return from a processor's page, and the
// operator's side (held.ts).
import type { Base } from '../base';
import type { CollectionService } from '../collections';
import type { DisbursementService } from '../disbursements';
import { AppError } from '../errors';
import type { Processors } from '../processors';
import type { ClaimedRequest, RequestKind } from '../processors/requests';
import type { RefundService } from '../refunds';
import type { WorkerSpec } from '../workers/loops';
import type { ProcessorRequestView } from '../api-records/collection';
import { ChargeAdapter } from './charges';
import { RequestEngine } from './engine';
import { HeldPayments } from './held';
import { DECLINED_NOTE } from './reconcile';

export class ProcessorRequestService {
  private readonly engine: RequestEngine;
  private readonly held: HeldPayments;

  constructor(
    private readonly s: Base & {
      collections: CollectionService;
      processors: Processors;
      refunds: Pick<RefundService, 'adapter'>;
      disbursements: Pick<DisbursementService, 'adapter'>;
      processId: string;
    },
  ) {
    this.engine = new RequestEngine(s, [new ChargeAdapter(s), s.refunds.adapter, s.disbursements.adapter]);
    this.held = new HeldPayments(s);
  }

  /** Sends what is due, every kind or one; returns how many requests were claimed. */
  sendDue(kind?: RequestKind): Promise<number> {
    return this.engine.sendDue(kind);
  }

  /** Asks about what is due, every kind or one; returns how many requests were claimed. */
  checkDue(kind?: RequestKind): Promise<number> {
    return this.engine.checkDue(kind);
  }

  /** The sends due of one kind, claimed (a test plays a worker that dies with them). */
  claimSends<C extends ClaimedRequest = ClaimedRequest>(kind: RequestKind = 'collection'): Promise<C[]> {
    return this.engine.claimSends(kind) as Promise<C[]>;
  }

  callbackUrl(r: { service_type: string; callback_token: string }): string {
    return this.engine.callbackUrl(r);
  }

  /**
   * A status query of one collection's charge now, through the engine (a customer back from a processor's
   * page waits for it). It waits for a concurrent claim rather than skip it. Nothing when the processor
   * does not have it.
   */
  checkNow(collectionId: bigint): Promise<void> {
    return this.engine.checkNow('collection', collectionId);
  }

  /**
   * A processor's callback: its unguessable token finds its request, whatever the kind (else NOT_FOUND,
   * nothing changes); read without trust, and a prompt to ask the processor (engine.ts says when).
   */
  async prompt(serviceType: string, callbackToken: string, body: unknown): Promise<void> {
    if (!this.s.processors.has(serviceType) || !/^[A-Za-z0-9_-]{16,64}$/.test(callbackToken)) throw notFound();
    if (!(await this.engine.prompt(serviceType, callbackToken, body))) throw notFound();
  }

  /**
   * The processor's words on the customer's last attempt at a payment still payable, when it was declined
   * (the request's note until a later answer replaces it); null otherwise.
   */
  async lastDecline(collectionId: bigint): Promise<string | null> {
    const r = await this.s.db.oneOrNone<{ last_error: string | null }>('SELECT last_error FROM processor_requests WHERE collection_id = $1', [collectionId]);
    return r?.last_error?.startsWith(DECLINED_NOTE) ? r.last_error.slice(DECLINED_NOTE.length) : null;
  }

  viewsOf(collectionIds: bigint[]): Promise<Map<bigint, ProcessorRequestView>> {
    return this.held.viewsOf(collectionIds);
  }

  resolveHeld(collectionId: bigint, outcome: 'COMPLETED' | 'FAILED', note: string, by: string): Promise<void> {
    return this.held.resolveHeld(collectionId, outcome, note, by);
  }

  /**
   * The engine's workers: a send and a check worker per kind (collection-sends, refund-checks, ...), so that
   * a kick wakes only its kind's claim; each runs the one engine.
   */
  workers(): WorkerSpec[] {
    return (['collection', 'refund', 'payout'] as const).flatMap((kind) => [
      { name: `${kind}-sends`, intervalMs: 500, run: () => this.sendDue(kind) },
      { name: `${kind}-checks`, intervalMs: 500, run: () => this.checkDue(kind) },
    ]);
  }
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No such callback');
}
