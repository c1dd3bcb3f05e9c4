// Proves when an approval threshold or a limit of money out loosens (so the change waits for its notice): raised or removed; never when set from none, kept or lowered.
import { amountLoosens } from '../../src/domain/guards';

describe('an amount guard (threshold or limit; null for none)', () => {
  it.each([
    // [current, next, loosens]
    [100n, 200n, true],
    [100n, null, true],
    [100n, 100n, false],
    [100n, 50n, false],
    [100n, 0n, false],
    [null, 100n, false],
    [null, null, false],
  ])('from %p to %p loosens: %p', (current, next, loosens) => {
    expect(amountLoosens(current, next)).toBe(loosens);
  });
});
