// Proves the Secret-Key check's memory of verified secrets never answers for another secret or another hash:
// a right secret verified once still matches, a wrong one after it does not, and the same secret against a
// regenerated token's hash does not either.
import { hashSecret, secretMatches } from '../../src/merchants/access-tokens';

describe('secretMatches', () => {
  it('remembers only a match of this secret with this hash', async () => {
    const first = await hashSecret('sk_sandbox_first');
    const regenerated = await hashSecret('sk_sandbox_second');
    for (let i = 0; i < 2; i++) {
      expect(await secretMatches(first, 'sk_sandbox_first')).toBe(true);
      expect(await secretMatches(first, 'sk_sandbox_firsT')).toBe(false);
      expect(await secretMatches(first, 'sk_sandbox_second')).toBe(false);
      expect(await secretMatches(regenerated, 'sk_sandbox_first')).toBe(false);
      expect(await secretMatches(regenerated, 'sk_sandbox_second')).toBe(true);
      expect(await secretMatches(first, undefined)).toBe(false);
      expect(await secretMatches(first, '')).toBe(false);
      expect(await secretMatches('not an argon2 hash', 'sk_sandbox_first')).toBe(false);
    }
  });
});
