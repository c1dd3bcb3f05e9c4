// What PostgreSQL plans for a statement (EXPLAIN, not run): every node of the plan, for tests that prove a
// list or count reads through an index instead of scanning or sorting a table.
import type { Db } from '../../src/db';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The nodes of `sql`'s plan, the top one first, each before those under it. */
export async function planNodes(db: Db, sql: string, values: unknown[] = []): Promise<PlanNode[]> {
  const [{ 'QUERY PLAN': plan }] = await db.any(`EXPLAIN (FORMAT JSON) ${sql}`, values);
  const all: PlanNode[] = [];
  const walk = (n: PlanNode) => {
    all.push(n);
    (n.Plans ?? []).forEach(walk);
  };
  walk(plan[0].Plan);
  return all;
}
