// Pooled random bytes: each byte handed out once, kept bytes never overwritten, big requests served whole.
import { POOL_BYTES, pooledRandomBytes } from '../../src/crypto/random-pool';

describe('pooledRandomBytes', () => {
  it('gives the length asked for, across block refills', () => {
    for (let i = 0; i < 3 * POOL_BYTES; i += 1) expect(pooledRandomBytes(1 + (i % 37)).length).toBe(1 + (i % 37));
    expect(pooledRandomBytes(POOL_BYTES).length).toBe(POOL_BYTES);
    expect(pooledRandomBytes(POOL_BYTES + 1).length).toBe(POOL_BYTES + 1);
  });

  it('never changes bytes already handed out, and never hands the same bytes twice', () => {
    const kept = Array.from({ length: 2000 }, () => pooledRandomBytes(20));
    const copies = kept.map((b) => Buffer.from(b).toString('hex'));
    // more draws refill the block several times; what was handed out stays as it was
    for (let i = 0; i < 2000; i += 1) pooledRandomBytes(20);
    expect(kept.map((b) => b.toString('hex'))).toEqual(copies);
    // 160 random bits each: a repeat would mean the same bytes were handed out twice
    expect(new Set(copies).size).toBe(copies.length);
  });

  it('spreads its bytes over every value', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 64; i += 1) for (const b of pooledRandomBytes(1024)) counts[b] += 1;
    // 65,536 bytes: about 256 of each value; a stuck or zeroed block would leave values unseen or pile up
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(380);
  });
});
