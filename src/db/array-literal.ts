// PostgreSQL array literals for a batch statement's parameters (create.sql takes one array per column, one
// element per request). The text is what node-postgres writes for a JS array (its arrayString: every element
// double-quoted, null as a bare NULL), made without its two regular-expression replaces on every element: an
// element is escaped only when it holds a double quote or a backslash. Timestamps are written in UTC
// (toISOString), the same instant node-postgres writes with the local offset: for timestamptz columns only.
const NEEDS_ESCAPE = /["\\]/;

function elementText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    default:
      if (v instanceof Date) return v.toISOString();
      throw new TypeError(`an array literal element must be text, a number, a bigint, a boolean, a Date or null, not ${typeof v}`);
  }
}

/** `values` as one PostgreSQL array literal (one dimension), for a `$n::type[]` parameter. */
export function arrayLiteral(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i += 1) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) {
      out += 'NULL';
      continue;
    }
    const text = elementText(v);
    out += '"' + (NEEDS_ESCAPE.test(text) ? text.replace(/\\/g, '\\\\').replace(/"/g, '\\"') : text) + '"';
  }
  return out + '}';
}
