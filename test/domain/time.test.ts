// Proves the UTC days a processor's day statements are read for (a BTCPay store's invoices, the sandbox's
// statements): from the day holding `from` to the last one two days past, each covering its day whole, and
// the day ids a statement is read by.
import { dayStart, settledDays, SETTLED_AFTER_DAYS } from '../../src/domain/time';

const at = (iso: string) => new Date(iso);

describe('settledDays', () => {
  it('lists each day from the one holding `from` to the one two days before `now`, oldest first', () => {
    const days = settledDays(at('2026-11-27T15:30:00Z'), at('2026-12-01T09:00:00Z'));
    expect(days.map((d) => d.id)).toEqual(['2026-11-27', '2026-11-28', '2026-11-29']);
    expect(days[0]).toEqual({ id: '2026-11-27', settledAt: at('2026-11-28T00:00:00Z'), covers: { from: at('2026-11-27T00:00:00Z'), to: at('2026-11-27T23:59:59.999Z') } });
  });

  it('reads a day from the first moment it is two days past, not a millisecond before', () => {
    expect(SETTLED_AFTER_DAYS).toBe(2);
    const from = at('2026-11-29T00:00:00Z');
    expect(settledDays(from, at('2026-11-30T23:59:59.999Z'))).toEqual([]);
    expect(settledDays(from, at('2026-12-01T00:00:00Z')).map((d) => d.id)).toEqual(['2026-11-29']);
  });

  it('lists nothing when `from` is after the last settled day', () => {
    expect(settledDays(at('2026-11-30T00:00:00Z'), at('2026-12-01T12:00:00Z'))).toEqual([]);
    expect(settledDays(at('2026-12-05T00:00:00Z'), at('2026-12-01T12:00:00Z'))).toEqual([]);
  });

  it('crosses a month and a year end', () => {
    expect(settledDays(at('2026-12-30T23:59:59Z'), at('2027-01-03T00:00:00Z')).map((d) => d.id)).toEqual(['2026-12-30', '2026-12-31', '2027-01-01']);
  });
});

describe('dayStart', () => {
  it('is the start of the UTC day a date names', () => {
    expect(dayStart('2026-02-28')).toEqual(at('2026-02-28T00:00:00Z'));
    expect(dayStart('2028-02-29')).toEqual(at('2028-02-29T00:00:00Z'));
  });

  it.each(['2026-02-30', '2026-13-01', '2026-1-1', '2026-01-01T00:00:00Z', 'reversal:ABC', '', ' 2026-01-01'])('names no day: %p', (id) => {
    expect(dayStart(id)).toBeNull();
  });
});
