// The audit log: who changed what and when, with the record before and after (secrets never appear).
import { admin, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

export function AuditLog({ businessId }: { businessId?: number }) {
  const { list, pages } = useCursorList(['audit', businessId ?? 'all'], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/audit-log', { params: { query: { business_id: businessId, cursor, per_page: 25 } } })),
  );
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made by a person or a key, and every refused sign-in or code, newest first.</p>
      {list.isPending && <Loading what="the audit log" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>Nothing changed yet.</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          rows={list.data.items}
          rowKey={(e) => e.id}
          columns={[
            { head: 'When', cell: (e) => <Time at={e.at} /> },
            { head: 'Who', cell: (e) => (e.actor.type === 'operator_key' ? 'operator key' : e.actor.type === 'anonymous' ? 'not signed in' : e.actor.email) },
            { head: 'What', cell: (e) => <code>{e.action}</code> },
            { head: 'Record', cell: (e) => (e.target_type ? `${e.target_type} ${e.target_id ?? ''}` : '—') },
            { head: 'Change', cell: (e) => <Change entry={e} /> },
          ]}
        />
      )}
      <Pager pages={pages} total={list.data?.total} />
    </>
  );
}

/** The fields that changed, before → after. */
function Change({ entry }: { entry: Admin['AuditEntry'] }) {
  const before = (entry.before ?? {}) as Record<string, unknown>;
  const after = (entry.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]) && k !== 'updated_at');
  if (keys.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="plain small">
      {keys.map((k) => (
        <li key={k}>
          <code>{k}</code>: {k in before ? JSON.stringify(before[k]) : '∅'} → {k in after ? JSON.stringify(after[k]) : '∅'}
        </li>
      ))}
    </ul>
  );
}
