// Proves the one list-filter helper: only the fields given become conditions, in the table's order, their
// values numbered after the statement's own; a flag adds its condition only when true; a declared value
// mapping is applied; no field given is TRUE. The lists' own tests prove each list's rows.
import { where } from '../../src/db/filters';
import type { FilterTable } from '../../src/db/filters';

interface F {
  business_id?: number | null;
  status?: string;
  from?: Date;
  to?: Date;
  held?: boolean;
}

const TABLE: FilterTable<F> = [
  { field: 'business_id', column: 'r.business_id', operator: '=' },
  { field: 'status', column: 'r.status', operator: '=' },
  { field: 'from', column: 'r.created_at', operator: '>=' },
  { field: 'to', column: 'r.created_at', operator: '<', value: (to: Date) => new Date(to.getTime() + 1000) },
  { field: 'held', column: "r.send_state = 'held'", operator: 'if' },
];

it('is TRUE with no values when no field is given (undefined and null alike)', () => {
  expect(where(TABLE, {})).toEqual({ text: 'TRUE', values: [] });
  expect(where(TABLE, { business_id: null, status: undefined, held: false })).toEqual({ text: 'TRUE', values: [] });
});

it('gives only the conditions of the fields given, in the order of the table, numbered from $1', () => {
  const from = new Date('2026-01-01T00:00:00Z');
  expect(where(TABLE, { from, business_id: 7 })).toEqual({ text: 'r.business_id = $1 AND r.created_at >= $2', values: [7, from] });
});

it("numbers after the statement's own values, which stay first", () => {
  const mine: unknown[] = [42];
  const w = where(TABLE, { status: 'FAILED' }, mine);
  expect(w).toEqual({ text: 'r.status = $2', values: [42, 'FAILED'] });
  expect(w.values).toBe(mine);
});

it('adds a flag only when true, with no value, and applies a declared value', () => {
  const to = new Date('2026-01-01T10:00:00Z');
  expect(where(TABLE, { held: true, to })).toEqual({ text: "r.created_at < $1 AND r.send_state = 'held'", values: [new Date('2026-01-01T10:00:01Z')] });
});
