// The reconciliation decision: what each status answer does to a PENDING or EXPIRED collection, the schedule and the deadline.
import { decide, nextCheckAt } from '../../src/processor-requests/reconcile';
import type { CheckInput } from '../../src/processor-requests/reconcile';
import type { Observed, QueryResult } from '../../src/processors/types';

const now = new Date('2026-11-26T08:00:00Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
const observed = (o: Partial<Observed>): QueryResult => ({
  kind: 'observed',
  observed: { status: 'PENDING', vendorStatus: 'PENDING', message: null, amountMinor: null, currency: null, unmapped: false, ...o },
});

function input(over: Partial<CheckInput>): CheckInput {
  return {
    state: 'sent',
    collectionStatus: 'PENDING',
    expiresAt: minutes(30),
    checks: 1,
    now,
    result: observed({}),
    amountMinor: 5_000_000n,
    currency: 'UGX',
    reported: { amountMinor: null, currency: null },
    checkScheduleMs: [30_000, 60_000, 120_000, 300_000, 600_000],
    lateCheckMs: 86_400_000,
    retryableDecline: false,
    ...over,
  };
}

describe('decide', () => {
  it('completes on a confirmed success with our amount and currency', () => {
    expect(decide(input({ result: observed({ status: 'COMPLETED', amountMinor: 5_000_000n, currency: 'UGX' }) }))).toEqual({ do: 'complete', from: 'PENDING' });
  });

  it('completes when the processor does not say the amount', () => {
    expect(decide(input({ result: observed({ status: 'COMPLETED' }) }))).toEqual({ do: 'complete', from: 'PENDING' });
  });

  it('holds a success with another amount or currency, from the query or from a callback', () => {
    expect(decide(input({ result: observed({ status: 'COMPLETED', amountMinor: 100n, currency: 'UGX' }) })).do).toBe('hold');
    expect(decide(input({ result: observed({ status: 'COMPLETED', amountMinor: 5_000_000n, currency: 'KES' }) })).do).toBe('hold');
    expect(decide(input({ result: observed({ status: 'COMPLETED' }), reported: { amountMinor: 100n, currency: null } })).do).toBe('hold');
  });

  it('completes an EXPIRED collection late, once the processor confirms it', () => {
    expect(decide(input({ collectionStatus: 'EXPIRED', result: observed({ status: 'COMPLETED' }) }))).toEqual({ do: 'complete', from: 'EXPIRED' });
  });

  it('fails or cancels a PENDING collection, and leaves a final one alone', () => {
    expect(decide(input({ result: observed({ status: 'CANCELLED', message: 'declined' }) }))).toEqual({ do: 'fail', status: 'CANCELLED', message: 'declined' });
    expect(decide(input({ collectionStatus: 'EXPIRED', result: observed({ status: 'FAILED' }) }))).toEqual({ do: 'settle' });
    expect(decide(input({ collectionStatus: 'COMPLETED', result: observed({ status: 'COMPLETED' }) }))).toEqual({ do: 'settle' });
  });

  it('holds a success confirmed after the collection FAILED or was CANCELLED: never credited by itself, never dropped', () => {
    for (const status of ['FAILED', 'CANCELLED'] as const) {
      expect(decide(input({ collectionStatus: status, state: 'settled', result: observed({ status: 'COMPLETED' }) }))).toEqual({
        do: 'hold',
        reason: `the processor confirmed payment of a collection already ${status}`,
      });
    }
  });

  it('a decline the customer can retry (a hosted checkout) stays PENDING until the deadline, then EXPIRES saying so', () => {
    const declined = observed({ status: 'FAILED', message: 'The payment was declined: Declined' });
    expect(decide(input({ retryableDecline: true, result: declined }))).toEqual({
      do: 'wait', nextCheckAt: minutes(1), note: 'declined, the customer may try again: The payment was declined: Declined',
    });
    expect(decide(input({ retryableDecline: true, result: declined, now: minutes(30) }))).toMatchObject({
      do: 'expire', message: 'Payment not completed in time (last attempt: The payment was declined: Declined)',
    });
    // a cancellation, and any decline the customer cannot retry (a direct card), is final at once
    expect(decide(input({ retryableDecline: true, result: observed({ status: 'CANCELLED', message: 'x' }) })).do).toBe('fail');
    expect(decide(input({ retryableDecline: false, result: declined }))).toEqual({ do: 'fail', status: 'FAILED', message: 'The payment was declined: Declined' });
  });

  it('waits on the schedule while PENDING, never past the deadline', () => {
    expect(decide(input({ checks: 1 }))).toEqual({ do: 'wait', nextCheckAt: minutes(1), note: null });
    expect(decide(input({ checks: 9 }))).toEqual({ do: 'wait', nextCheckAt: minutes(10), note: null });
    expect(decide(input({ checks: 9, expiresAt: minutes(4) }))).toEqual({ do: 'wait', nextCheckAt: minutes(4), note: null });
  });

  it('expires at the deadline when the processor, asked once more, has no final answer; then keeps asking for a late success', () => {
    expect(decide(input({ expiresAt: now }))).toEqual({ do: 'expire', nextCheckAt: minutes(10), note: null });
    expect(decide(input({ expiresAt: now, result: { kind: 'unavailable', detail: 'down' } }))).toEqual({ do: 'expire', nextCheckAt: minutes(10), note: 'down' });
  });

  it('stops asking after the late window', () => {
    expect(decide(input({ collectionStatus: 'EXPIRED', expiresAt: minutes(-24 * 60) }))).toEqual({ do: 'wait', nextCheckAt: null, note: null });
  });

  it('waits on a "not found" for a request the processor took (a resend is the engine\'s, for an unknown outcome only)', () => {
    expect(decide(input({ state: 'sent', result: { kind: 'not_found' } }))).toEqual({ do: 'wait', nextCheckAt: minutes(1), note: 'the processor does not know the request' });
  });

  it('reads an unmapped status as PENDING and says so', () => {
    expect(decide(input({ result: observed({ unmapped: true, vendorStatus: 'HALF_DONE' }) }))).toEqual({
      do: 'wait', nextCheckAt: minutes(1), note: 'unknown processor status HALF_DONE',
    });
  });
});

describe('nextCheckAt', () => {
  it('follows the schedule by the number of checks made, repeating the last step', () => {
    const base = { collectionStatus: 'PENDING' as const, expiresAt: minutes(120), now, checkScheduleMs: [30_000, 60_000], lateCheckMs: 0 };
    expect(nextCheckAt({ ...base, checks: 0 })).toEqual(new Date(now.getTime() + 30_000));
    expect(nextCheckAt({ ...base, checks: 5 })).toEqual(minutes(1));
  });
});
