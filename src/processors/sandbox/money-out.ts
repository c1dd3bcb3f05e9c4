// What the sandbox simulator's refunds (refunds.ts) and payouts (payouts.ts) share. Stateless like the rest of
// the simulator: the outcome decided when a request is sent is carried in the simulated processor's
// reference (`<prefix>-<code>-<our reference>`), which its status query reads back. Each outcome is declared
// once with the designated value that gives it, listed with the states and notifications it produces.
import type { components } from '../../../generated/merchant-api';
import type { QueryResult } from '../types';

type Scenario = components['schemas']['SandboxScenario'];

/**
 * One outcome of the simulator: its own status word, the status that word maps to (explicitly), a
 * failure's message, and the designated value that gives it, as GET /v1/sandbox/scenarios lists it.
 */
export interface SimulatedOutcome<S extends string> {
  word: string;
  status: S;
  message?: string;
  scenario: { name: string; value: string; description: string };
}

/** The outcomes of one kind of simulated request, by the code its reference carries. */
export class SimulatedOutcomes<S extends string> {
  private readonly pattern: RegExp;

  constructor(
    private readonly prefix: string,
    private readonly transactionType: 'refund' | 'disbursement',
    private readonly byCode: Readonly<Record<string, SimulatedOutcome<S>>>,
  ) {
    this.pattern = new RegExp(`^${prefix}-([${Object.keys(byCode).join('')}])-[A-Za-z0-9-]+$`);
  }

  /** A send's answer: taken, under a reference that carries the outcome `code`. */
  accepted(code: string, ourReference: string): { kind: 'accepted'; vendorReference: string } {
    return { kind: 'accepted', vendorReference: `${this.prefix}-${code}-${ourReference}` };
  }

  /** A status query: the outcome the reference carries; not found for a reference the simulator never gave. */
  query(vendorReference: string | null): QueryResult<S> {
    const m = vendorReference ? this.pattern.exec(vendorReference) : null;
    if (!m) return { kind: 'not_found' };
    const o = this.byCode[m[1]];
    return { kind: 'observed', observed: { status: o.status, vendorStatus: o.word, message: o.message ?? null, amountMinor: null, currency: null, unmapped: false } };
  }

  /**
   * The designated values, in the order of the codes: each request is taken (PROCESSING), then reaches its
   * outcome (a PENDING one stays PROCESSING for good); a notification for each status after PENDING.
   */
  scenarios(): Scenario[] {
    return Object.values(this.byCode).map(({ status, scenario }) => {
      const outcome = status === 'PENDING' ? 'PROCESSING' : (status as Scenario['outcome']);
      const states: Scenario['states'] = outcome === 'PROCESSING' ? ['PENDING', 'PROCESSING'] : ['PENDING', 'PROCESSING', outcome];
      return {
        transaction_type: this.transactionType, payment_method: null, name: scenario.name, value: scenario.value, outcome, description: scenario.description, states,
        notifications: states.slice(1).map((s, i) => ({ sequence: i + 1, transaction_status: s })),
      };
    });
  }
}
