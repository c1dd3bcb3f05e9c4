// Random bytes for the ids and tokens a request makes (gateway references, page tokens), drawn from a
// block of the operating system's CSPRNG fetched a few kilobytes at a time, as node's own randomUUID does:
// one call into the CSPRNG per block instead of one per id. Every byte is handed out once; a block is
// never refilled in place, so a caller may keep what it was given.
import { randomBytes } from 'node:crypto';

/** bytes fetched at once; larger requests go to the CSPRNG directly */
export const POOL_BYTES = 4096;

let block: Buffer = Buffer.alloc(0);
let offset = 0;

/** `n` bytes from the CSPRNG, never handed out before. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  if (offset + n > block.length) {
    block = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = block.subarray(offset, offset + n);
  offset += n;
  return out;
}
