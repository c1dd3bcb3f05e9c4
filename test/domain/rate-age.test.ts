// Proves how old a market rate may be: business days for the daily feeds (weekends do not count), hours for the operator's (0 = no limit), none for the sandbox's.
import { businessDaysAfter, DEFAULT_MAX_AGES, isCurrent } from '../../src/domain/rate-age';

const at = (iso: string) => new Date(iso);

describe('businessDaysAfter', () => {
  it.each([
    ['the same day', '2026-11-27T00:00:00Z', '2026-11-27T23:59:59Z', 0],
    ['Friday to Saturday and Sunday', '2026-11-27T00:00:00Z', '2026-11-29T12:00:00Z', 0],
    ['Friday to Monday', '2026-11-27T00:00:00Z', '2026-11-30T08:00:00Z', 1],
    ['Thursday to Monday', '2026-11-26T00:00:00Z', '2026-11-30T08:00:00Z', 2],
    ['Wednesday to Monday', '2026-11-25T00:00:00Z', '2026-11-30T08:00:00Z', 3],
    ['Monday to Wednesday', '2026-11-30T00:00:00Z', '2026-12-02T06:00:00Z', 2],
  ])('%s: %s -> %s is %p', (_what, from, to, days) => {
    expect(businessDaysAfter(at(from), at(to))).toBe(days);
  });
});

describe('isCurrent', () => {
  it('keeps a feed rate for 2 business days by default, over a weekend', () => {
    expect(isCurrent('ecb', at('2026-11-26T00:00:00Z'), at('2026-11-30T16:00:00Z'), DEFAULT_MAX_AGES)).toBe(true);
    expect(isCurrent('ecb', at('2026-11-25T00:00:00Z'), at('2026-11-30T16:00:00Z'), DEFAULT_MAX_AGES)).toBe(false);
    expect(isCurrent('frankfurter', at('2026-11-25T00:00:00Z'), at('2026-11-30T16:00:00Z'), { ...DEFAULT_MAX_AGES, frankfurterBusinessDays: 3 })).toBe(true);
  });

  it('keeps an operator rate for ever by default, else for its hours', () => {
    expect(isCurrent('operator', at('2020-01-01T00:00:00Z'), at('2026-11-30T16:00:00Z'), DEFAULT_MAX_AGES)).toBe(true);
    const day = { ...DEFAULT_MAX_AGES, operatorHours: 24 };
    expect(isCurrent('operator', at('2026-11-29T16:00:00Z'), at('2026-11-30T16:00:00Z'), day)).toBe(true);
    expect(isCurrent('operator', at('2026-11-29T15:59:59Z'), at('2026-11-30T16:00:00Z'), day)).toBe(false);
  });

  it('keeps the sandbox demo rates for ever', () => {
    expect(isCurrent('sandbox', at('2020-01-01T00:00:00Z'), at('2026-11-30T16:00:00Z'), { ecbBusinessDays: 0, frankfurterBusinessDays: 0, operatorHours: 1 })).toBe(true);
  });
});
