// The processor-request engine's rules as one table of tests (the shape of engine-rules.test.ts, which
// proves them against MTN MoMo), for a processor's kinds each described by a KindRules: a lost answer is
// followed by a status query, never a resend; a resend, under the same reference, only after the
// processor's clear "not found"; a prompt (the processor's callback or signed webhook) for a request in a
// final state makes no call; a claim whose process stopped beating is taken over at once, not at its
// lease's end. The workers are driven by hand on a clock the test moves; each processor's file says how its
// fake loses an answer, what its calls about a request are, and how it prompts.
import type { TestService } from '../helpers/service';
import { eventually } from '../helpers/notify-fixtures';

export type Kind = 'collection' | 'refund' | 'payout';

/** A request as the engine keeps it, found by its owner's gateway reference. */
export interface RequestRow {
  id: string;
  reference: string;
  vendor_reference: string | null;
  callback_token: string;
  state: string;
  send_attempts: number;
}

export interface KindRules {
  kind: Kind;
  /** a new request of this kind, queued to be sent: its owner's gateway reference */
  start(): Promise<string>;
  /** its owner's transaction_status through the merchant API */
  status(gatewayReference: string): Promise<string>;
  /** the processor will take the next send of this kind and never answer it */
  loseNextAnswer(): void;
  /** the processor answers again (a fake whose answers are lost by a mode, not one call at a time) */
  answersAgain?(): void;
  /** what the processor holds of a request (undefined: nothing) */
  atProcessor(r: RequestRow): unknown;
  /** the processor's calls about one request, in order: 'send' or 'query' */
  calls(r: RequestRow): string[];
  /** the processor's callback or signed webhook about a request, as it sends it */
  prompt(r: RequestRow, gatewayReference: string): Promise<void>;
  /** what the processor's customer does for a request to complete there, if anything (played each round until it completes) */
  finish?(r: RequestRow): void;
  /** why the processor has no clear "not found" for this kind: its own file tests what the engine does instead */
  noNotFound?: string;
  /** how many status queries prompts may make of a final request (a completed payout watched for a reversal) */
  promptedQueriesAtMost?: number;
  /** why two requests of this kind cannot wait unsent side by side, as the takeover below needs: its own file tests the takeover instead */
  ownTakeover?: string;
}

export interface EngineWorld {
  svc: () => TestService;
  /** moves the test's clock */
  advance(ms: number): void;
  now(): Date;
}

const TABLES: Record<Kind, { table: string; key: string; state: string; owner: string }> = {
  collection: { table: 'processor_requests', key: 'collection_id', state: 'state', owner: 'collections' },
  refund: { table: 'refunds', key: 'id', state: 'send_state', owner: 'refunds' },
  payout: { table: 'disbursements', key: 'id', state: 'send_state', owner: 'disbursements' },
};

export function requestOf(svc: TestService, kind: Kind, gatewayReference: string): Promise<RequestRow> {
  const t = TABLES[kind];
  const from = kind === 'collection' ? 'processor_requests q JOIN collections o ON o.id = q.collection_id' : `${t.table} q JOIN ${t.table} o ON o.id = q.id`;
  return svc.services.db.one(
    `SELECT q.${t.key}::text AS id, q.reference, q.vendor_reference, q.callback_token, q.${t.state} AS state, q.send_attempts
     FROM ${from} WHERE o.gateway_reference = $1`,
    [gatewayReference],
  );
}

/** Runs the workers of one kind until `done` holds, moving the clock past each schedule step. */
export function driven<T>(w: EngineWorld, kind: Kind, done: () => Promise<T | undefined>, what: string): Promise<T> {
  return eventually(async () => {
    w.advance(400);
    await w.svc().services.processorRequests.sendDue(kind);
    await w.svc().services.processorRequests.checkDue(kind);
    return done();
  }, 20_000, what);
}

/** The four rules, for each kind given. */
export function engineRules(processor: string, w: EngineWorld, kinds: KindRules[]): void {
  const engine = () => w.svc().services.processorRequests;
  const db = () => w.svc().services.db;
  const completed = (k: KindRules, ref: string) => driven(w, k.kind, async () => {
    if (k.finish) k.finish(await requestOf(w.svc(), k.kind, ref));
    return (await k.status(ref)) === 'COMPLETED' ? true : undefined;
  }, `${k.kind} completed`);

  describe.each(kinds.map((k) => [k.kind, k] as const))(`a ${processor} %s`, (kind, k) => {
    const t = TABLES[kind];

    it('whose answer was lost is asked about with a status query, never sent again', async () => {
      const ref = await k.start();
      k.loseNextAnswer();
      expect(await engine().sendDue(kind)).toBe(1); // the processor keeps the request and never answers: the call times out
      k.answersAgain?.();
      const r = await requestOf(w.svc(), kind, ref);
      expect(r.state).toBe('unknown');
      expect(k.atProcessor(r)).toBeDefined();
      expect(await engine().sendDue(kind)).toBe(0);
      await completed(k, ref);
      const calls = k.calls(await requestOf(w.svc(), kind, ref));
      expect(calls[0]).toBe('send');
      expect(calls.filter((x) => x === 'send')).toHaveLength(1);
      expect(calls).toContain('query');
    });

    // else the processor's own file tests what the engine does instead
    if (!k.noNotFound) it(`of unknown outcome is sent again, under the same reference, only after ${processor} says it does not have it`, async () => {
      const ref = await k.start();
      const r = await requestOf(w.svc(), kind, ref);
      // what a send that never reached the processor leaves behind: an unknown outcome, its status query due
      await db().none(`UPDATE ${t.table} SET ${t.state} = 'unknown', next_send_at = NULL, next_check_at = $2 WHERE ${t.key} = $1`, [r.id, w.now()]);
      expect(await engine().sendDue(kind)).toBe(0); // not sent blind
      expect(await engine().checkDue(kind)).toBe(1);
      expect(k.calls(r)).toEqual(['query']); // the processor's clear "not found"
      expect((await requestOf(w.svc(), kind, ref)).state).toBe('queued');
      expect(await engine().sendDue(kind)).toBe(1);
      expect(k.calls(r)).toEqual(['query', 'send']);
      expect((await requestOf(w.svc(), kind, ref)).reference).toBe(r.reference);
      expect(k.atProcessor(r)).toBeDefined();
      await completed(k, ref);
      expect(k.calls(await requestOf(w.svc(), kind, ref)).filter((x) => x === 'send')).toHaveLength(1);
    });

    it('in a final state makes no call when its callback comes, however often', async () => {
      const ref = await k.start();
      await completed(k, ref);
      const r = await requestOf(w.svc(), kind, ref);
      const before = k.calls(r).length;
      const made: number[] = [];
      for (let i = 0; i < 6; i++) {
        await k.prompt(r, ref);
        w.advance(400);
        await engine().checkDue(kind);
        made.push(k.calls(await requestOf(w.svc(), kind, ref)).length);
      }
      // a completed payout may still be reversed: asked while the check schedule lasts, no more
      expect(made[made.length - 1] - before).toBeLessThanOrEqual(k.promptedQueriesAtMost ?? 0);
      expect(made.slice(3)).toEqual([made[2], made[2], made[2]]);
      expect(await k.status(ref)).toBe('COMPLETED');
      // and nothing is left due or claimed: no query waits for a lease to end
      expect(await db().one(`SELECT next_check_at, claimed_by FROM ${t.table} WHERE ${t.key} = $1`, [r.id])).toEqual({ next_check_at: null, claimed_by: null });
    });

    // a refund's or a payout's own late answer; a collection's is decided again on what it finds (charges.ts)
    if (kind !== 'collection') it('settled by its callback while a status query was under way stays settled when the query answers "still pending"', async () => {
      const ref = await k.start();
      await completed(k, ref);
      // the row as a worker had claimed it for a status query while it was still PROCESSING, before the callback settled it
      const row = await db().one(`SELECT * FROM ${t.table} WHERE gateway_reference = $1`, [ref]);
      const claimed = { ...row, status: 'PROCESSING', [t.state]: 'sent', state: 'sent', was_sending: false, watch: false };
      const pending = { kind: 'observed' as const, observed: { status: 'PENDING' as const, vendorStatus: 'pending', message: null, amountMinor: null, currency: null, unmapped: false } };
      const adapter = kind === 'refund' ? w.svc().services.refunds.adapter : w.svc().services.disbursements.adapter;
      await adapter.checked(claimed, pending);
      expect(await db().one(`SELECT status, ${t.state} AS state, next_check_at, claimed_by FROM ${t.table} WHERE gateway_reference = $1`, [ref])).toEqual({
        status: 'COMPLETED', state: 'settled', next_check_at: null, claimed_by: null,
      });
    });

    // else the processor's own file tests it
    if (!k.ownTakeover) it("claimed by a process that stopped beating is taken over at once, before its lease ends; a live process's claim is left to it", async () => {
      const dead = await k.start();
      const alive = await k.start();
      const at = w.now();
      // two other processes claimed one each for a send (their lease: a minute) and marked it 'sending'
      await db().none(
        `INSERT INTO worker_processes (id, started_at, heartbeat_at) VALUES ('engine-dead', $1, $2), ('engine-alive', $1, $1)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`,
        [at, new Date(at.getTime() - 11_000)],
      );
      for (const [ref, process] of [[dead, 'engine-dead'], [alive, 'engine-alive']]) {
        const r = await requestOf(w.svc(), kind, ref);
        await db().none(
          `UPDATE ${t.table} SET ${t.state} = 'sending', send_attempts = 1, next_send_at = $2, claimed_by = $3 WHERE ${t.key} = $1`,
          [r.id, new Date(at.getTime() + 60_000), process],
        );
      }
      await db().none("UPDATE worker_processes SET heartbeat_at = $1 WHERE id = 'engine-alive'", [w.now()]);
      expect(await engine().sendDue(kind)).toBe(1);
      // the dead process's call may have reached the processor: an unknown outcome, asked about, never sent blind
      const taken = await requestOf(w.svc(), kind, dead);
      expect(taken).toMatchObject({ state: 'unknown', send_attempts: 2 });
      expect(k.calls(taken)).toEqual([]);
      expect((await requestOf(w.svc(), kind, alive)).state).toBe('sending');
      await db().none("DELETE FROM worker_processes WHERE id IN ('engine-dead', 'engine-alive')");
    });
  });
}
