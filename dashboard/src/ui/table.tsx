// The one table every list uses: a caption-less, scrollable table whose columns say their heading
// and how to show a row's cell; numbers are right-aligned. A `stacked` table shows each row as a block
// of labelled lines on a phone instead of scrolling sideways (for rows whose cells hold several lines).
import type { ReactNode } from 'react';

export interface Column<T> {
  head: string;
  cell: (row: T) => ReactNode;
  num?: boolean;
  className?: string;
  /** a heading for screen readers only (e.g. a column of buttons) */
  hidden?: boolean;
}

export function DataTable<T>({ columns, rows, rowKey, stacked }: { columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string | number; stacked?: boolean }) {
  return (
    <div className="table-wrap">
      <table className={stacked ? 'stacked' : undefined}>
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
                <td key={c.head} data-label={stacked ? c.head : undefined} className={[c.num ? 'num' : '', c.className ?? ''].join(' ').trim() || undefined}>
                  {stacked ? <div>{c.cell(row)}</div> : c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
