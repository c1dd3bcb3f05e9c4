// The one table every list uses: a caption-less, scrollable table whose columns say their heading
// and how to show a row's cell; numbers are right-aligned. On a phone (styles.css) a `stacked` table shows
// each row as a block of labelled lines instead of scrolling sideways (for rows whose cells hold several
// lines); with `cards`, each row becomes a card with every cell under its heading, the `lead` cells
// (amount, status, the action) first, so nothing that matters sits off-screen at phone width.
import type { ReactNode } from 'react';

export interface Column<T> {
  head: string;
  cell: (row: T) => ReactNode;
  num?: boolean;
  className?: string;
  /** a heading for screen readers only (e.g. a column of buttons) */
  hidden?: boolean;
  /** shown first in a row's card on a narrow screen */
  lead?: boolean;
}

/**
 * `label` names the table's scroll region, which then takes keyboard focus (tabIndex 0), so a keyboard
 * user can scroll a table wider or taller than the screen (axe: scrollable-region-focusable).
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  label,
  cards,
  stacked,
}: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  label?: string;
  cards?: boolean;
  stacked?: boolean;
}) {
  // a phone's block or flex layout would take the table's meaning from assistive technology: the roles keep it
  const role = (r: string) => (cards || stacked ? { role: r } : {});
  return (
    <div className="table-wrap" {...(label ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {})}>
      <table className={cards ? 'cards' : stacked ? 'stacked' : undefined} {...role('table')}>
        <thead {...role('rowgroup')}>
          <tr {...role('row')}>
            {columns.map((c) => (
              <th key={c.head} scope="col" className={c.num ? 'num' : undefined} {...role('columnheader')}>
                {c.hidden ? <span className="visually-hidden">{c.head}</span> : c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody {...role('rowgroup')}>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...role('row')}>
              {columns.map((c) => (
                <td
                  key={c.head}
                  className={[c.num ? 'num' : '', c.lead ? 'lead' : '', c.className ?? ''].join(' ').trim() || undefined}
                  data-label={stacked || (cards && !c.hidden) ? c.head : undefined}
                  {...role('cell')}
                >
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
