// The one table every list uses: a caption-less, scrollable table whose columns say their heading
// and how to show a row's cell; numbers are right-aligned.
import type { ReactNode } from 'react';

export interface Column<T> {
  head: string;
  cell: (row: T) => ReactNode;
  num?: boolean;
  className?: string;
  /** a heading for screen readers only (e.g. a column of buttons) */
  hidden?: boolean;
}

/**
 * `label` names the table's scroll region, which then takes keyboard focus (tabIndex 0), so a keyboard
 * user can scroll a table wider or taller than the screen (axe: scrollable-region-focusable).
 */
export function DataTable<T>({ columns, rows, rowKey, label }: { columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string | number; label?: string }) {
  return (
    <div className="table-wrap" {...(label ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {})}>
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.head} scope="col" className={c.num ? 'num' : undefined}>
                {c.hidden ? <span className="visually-hidden">{c.head}</span> : c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.head} className={[c.num ? 'num' : '', c.className ?? ''].join(' ').trim() || undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
