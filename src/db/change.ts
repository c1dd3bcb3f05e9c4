// One transaction around a whole change made through the operator API: the change and its audit
// entry commit together or not at all. Services keep calling `services.db`; while a change
// is open it answers the change's transaction, so their own tx() become savepoints inside it. Work for
// other connections (waking a worker) waits for the commit, and what must outlive a rollback (a failed
// attempt counted by the sign-in throttle) is written again once the transaction is gone.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Tx } from './index';

interface Change {
  t: Tx;
  open: boolean;
  committed: (() => void)[];
  rolledBack: (() => Promise<unknown>)[];
}

const current = new AsyncLocalStorage<Change>();

/** The database as code running now should use it: the open change's transaction, or `root`. */
export function dbOf(root: Db): Db {
  const change = current.getStore();
  return change?.open ? (change.t as unknown as Db) : root;
}

/** Whether code running now is inside an open change (its statements go to the change's transaction). */
export function inOpenChange(): boolean {
  return current.getStore()?.open === true;
}

/** Runs `fn` as one transaction on `root`; inside an open change it just runs (one transaction still). */
export async function inOneChange<T>(root: Db, fn: () => Promise<T>): Promise<T> {
  if (current.getStore()?.open) return fn();
  const change: Change = { t: null as unknown as Tx, open: false, committed: [], rolledBack: [] };
  let result: T;
  try {
    result = await root.tx((t) => {
      change.t = t;
      change.open = true;
      return current.run(change, fn).finally(() => {
        change.open = false;
      });
    });
  } catch (e) {
    for (const redo of change.rolledBack) await redo().catch(() => undefined);
    throw e;
  }
  for (const then of change.committed) then();
  return result;
}

/** Runs `fn` once the open change commits (at once outside a change); dropped if it rolls back. */
export function afterCommit(fn: () => void): void {
  const change = current.getStore();
  if (change?.open) change.committed.push(fn);
  else fn();
}

/** Runs `fn` on the root database if the open change rolls back (never outside a change). */
export function ifRolledBack(fn: () => Promise<unknown>): void {
  const change = current.getStore();
  if (change?.open) change.rolledBack.push(fn);
}
