// What PostgreSQL plans for a statement (EXPLAIN, not run): every node of the plan, for tests that prove a
// list or count reads through an index instead of scanning or sorting a table; and the indexes a migration made.
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

/**
 * The indexes of `tables` whose definition contains one of `parts`, by name: each its name and its
 * definition (pg_indexes.indexdef without the schema), for tests that prove a migration made them.
 */
export async function indexDefinitions(db: Db, tables: string[], parts: string[]): Promise<[string, string][]> {
  const rows = await db.any<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY($1) AND indexdef LIKE ANY($2) ORDER BY indexname",
    [tables, parts.map((p) => `%${p}%`)],
  );
  return rows.map((r) => [r.indexname, r.indexdef.replace(/ ON public\./, ' ON ')]);
}
