// The one way a list's filters become SQL: a wing declares once, in a table, which field of its filters
// is compared with which column and how; `where` gives the conditions of the fields a request gave, and
// only those, with their values as numbered parameters. Why only those and not one constant text with NULL
// guards (`$1 IS NULL OR ...`): a list's filters combine freely and each combination is a different index
// choice; a text planned once, generically, would scan where the condition given needs an index.
// Per request it walks the table once and formats nothing: the driver puts the values in, with the page's.
import { pgp } from './index';

/** How a column is compared with a filter's value; `if` takes the column as a whole condition, given when the field is true. */
export type FilterOperator = '=' | '>=' | '<=' | '<' | 'if';

/** One filter: the field of the filters, the column (or expression) it is on, and how they compare. */
export interface Filter<F> {
  field: keyof F & string;
  column: string;
  operator: FilterOperator;
  /** the value the condition compares, when it is not the field's as given */
  value?: (given: never) => unknown;
}

/** A list's filters, declared once per list. */
export type FilterTable<F> = readonly Filter<F>[];

/** The filters every list of a business's money movements has (collections, refunds, disbursements). */
export interface MovementFilters {
  /** one business's (always set for a merchant; an operator may leave it out) */
  business_id?: number;
  status?: string;
  currency?: string;
  merchant_reference?: string;
  /** created at, both included */
  from?: Date;
  to?: Date;
}

/**
 * The filters of `MovementFilters` over a table of money movements, its columns named with `prefix` (the
 * statement's alias and a dot, or nothing), its currency column `currency`; a list adds its own after them.
 */
export function movementFilters<F extends MovementFilters>(prefix: '' | `${string}.`, currency = 'currency'): FilterTable<F> {
  return [
    { field: 'business_id', column: `${prefix}business_id`, operator: '=' },
    { field: 'status', column: `${prefix}status`, operator: '=' },
    { field: 'currency', column: `${prefix}${currency}`, operator: '=' },
    { field: 'merchant_reference', column: `${prefix}merchant_reference`, operator: '=' },
    { field: 'from', column: `${prefix}created_at`, operator: '>=' },
    { field: 'to', column: `${prefix}created_at`, operator: '<=' },
  ];
}

/** A list's conditions (`TRUE` when none was given) and the values its parameters number. */
export interface Where {
  text: string;
  values: unknown[];
}

/**
 * The conditions of `table` for the fields of `f` that are given (neither undefined nor null), joined
 * with AND. Parameters are numbered after the values already in `values` (appended to it), so a
 * statement may hold fixed parameters of its own before them.
 */
export function where<F extends object>(table: FilterTable<F>, f: F, values: unknown[] = []): Where {
  let text = '';
  for (const c of table) {
    const given = (f as Record<string, unknown>)[c.field];
    if (given === undefined || given === null) continue;
    if (c.operator === 'if') {
      if (given !== true) continue;
      text += text ? ` AND ${c.column}` : c.column;
      continue;
    }
    values.push(c.value ? c.value(given as never) : given);
    const condition = `${c.column} ${c.operator} $${values.length}`;
    text += text ? ` AND ${condition}` : condition;
  }
  return { text: text || 'TRUE', values };
}

/**
 * `w` as text with its values formatted in, for a statement whose own parameters are named (a `.sql`
 * file's, as an export's): the values are formatted as the driver would, once per export, not per batch.
 */
export function inlined(w: Where): string {
  return pgp.as.format(w.text, w.values);
}
