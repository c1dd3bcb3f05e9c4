// Proves the group-commit batcher's rules with a write whose answers the test releases by hand (nothing is
// timed): a write alone goes at once; writes that arrive while every slot is busy wait and go together, in
// their order, up to the batch limit; each caller gets its own result; a batch the database refuses is
// written again one by one so only the refused write fails; a lost database fails the batch's callers at
// once without writing again. Every wait on the batcher is bounded (`answered`), so a broken batcher fails
// here with what it never answered instead of hanging until jest's file timeout.
import { Batcher } from '../../src/db/batcher';

/** A write that records each batch it is given and answers it only when the test says so. */
function heldWrite(answer: (item: string) => string = (item) => `ok:${item}`) {
  const batches: string[][] = [];
  const pending: { items: string[]; resolve: (out: string[]) => void; reject: (err: unknown) => void }[] = [];
  return {
    batches,
    write: (items: string[]) =>
      new Promise<string[]>((resolve, reject) => {
        batches.push([...items]);
        pending.push({ items, resolve, reject });
      }),
    /** answers the oldest batch still held */
    release() {
      const p = pending.shift();
      if (!p) throw new Error('no batch is held');
      p.resolve(p.items.map(answer));
    },
    fail(err: unknown) {
      const p = pending.shift();
      if (!p) throw new Error('no batch is held');
      p.reject(err);
    },
    get held() {
      return pending.length;
    },
  };
}

/**
 * How long a wait on the batcher may take. Every answer here is released by hand before it is awaited, so it
 * is due within a few turns of the event loop; this only bounds a broken batcher, and is no measure of speed.
 */
const ANSWER_WAIT_MS = 2_000;

/** `p` once it settles, or a failure naming `what` if it has not within ANSWER_WAIT_MS. */
function answered<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the batcher never answered ${what} (waited ${ANSWER_WAIT_MS} ms)`)), ANSWER_WAIT_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

it('writes a lone item at once, as a batch of one', async () => {
  const w = heldWrite();
  const b = new Batcher(w.write, { maxBatch: 10, maxRunning: 1 });
  const a = b.add('a');
  expect(w.batches).toEqual([['a']]);
  w.release();
  await expect(answered(a, "a lone write's caller")).resolves.toBe('ok:a');
});

it('gathers what arrives while every slot is busy into the next batch, in order, each answered with its own result', async () => {
  const w = heldWrite();
  const b = new Batcher(w.write, { maxBatch: 3, maxRunning: 2 });
  const outs = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => b.add(x));
  // two slots: a and b go alone, the rest wait
  expect(w.batches).toEqual([['a'], ['b']]);
  expect(b.queued).toBe(5);
  w.release();
  await settle();
  // a slot came free: the next batch takes at most three of those waiting
  expect(w.batches).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
  w.release();
  await settle();
  expect(w.batches[3]).toEqual(['f', 'g']);
  w.release();
  w.release();
  await expect(answered(Promise.all(outs), 'every caller of the gathered batches')).resolves.toEqual(['ok:a', 'ok:b', 'ok:c', 'ok:d', 'ok:e', 'ok:f', 'ok:g']);
  expect(b.queued).toBe(0);
});

it('writes a refused batch again one by one, so only the write the database refuses fails', async () => {
  const w = heldWrite();
  const refused: [string, number][] = [];
  const b = new Batcher(w.write, { maxBatch: 10, maxRunning: 1 }, (err, size) => refused.push([(err as Error).message, size]));
  const first = b.add('first');
  const outs = ['good', 'bad', 'also-good'].map((x) => b.add(x).then((v) => ({ v }), (e: Error) => ({ e: e.message })));
  w.release();
  await settle();
  expect(w.batches[1]).toEqual(['good', 'bad', 'also-good']);
  w.fail(Object.assign(new Error('value too long'), { code: '22001' }));
  for (const item of ['good', 'bad', 'also-good']) {
    await settle();
    expect(w.batches[w.batches.length - 1]).toEqual([item]);
    if (item === 'bad') w.fail(Object.assign(new Error('value too long'), { code: '22001' }));
    else w.release();
  }
  await expect(answered(first, "the first batch's caller")).resolves.toBe('ok:first');
  await expect(answered(Promise.all(outs), 'every caller of the refused batch')).resolves.toEqual([{ v: 'ok:good' }, { e: 'value too long' }, { v: 'ok:also-good' }]);
  expect(w.batches).toHaveLength(5);
  // told once, for the batch; a write refused alone is its caller's answer, not a batch refused
  expect(refused).toEqual([['value too long', 3]]);
});

it('fails every caller of a batch lost with the database at once, without writing any again', async () => {
  const w = heldWrite();
  const refused: number[] = [];
  const b = new Batcher(w.write, { maxBatch: 10, maxRunning: 1 }, (_err, size) => refused.push(size));
  const first = b.add('first');
  const outs = ['x', 'y'].map((x) => b.add(x).then(() => 'written', (e: Error) => e.message));
  w.release();
  await settle();
  w.fail(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
  await expect(answered(Promise.all(outs), 'the callers of the lost batch')).resolves.toEqual(['Connection terminated unexpectedly', 'Connection terminated unexpectedly']);
  await expect(answered(first, "the first batch's caller")).resolves.toBe('ok:first');
  expect(w.batches).toEqual([['first'], ['x', 'y']]);
  expect(w.held).toBe(0);
  expect(refused).toEqual([]);
});

it('refuses a write that answers a different number of results than items, and limits below one', async () => {
  const b = new Batcher(async (items: string[]) => items.slice(1), { maxBatch: 10, maxRunning: 1 });
  await expect(answered(b.add('a'), 'a write answering too few results')).rejects.toThrow('a batch of 1 writes answered 0 results');
  expect(() => new Batcher(async (items: string[]) => items, { maxBatch: 0, maxRunning: 1 })).toThrow('limits of at least 1');
});
