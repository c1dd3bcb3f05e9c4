// The audit log: who changed what and when, with the record before and after (secrets never appear).
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { LoadError, Loading, Pager, Time } from '../../ui/parts';

export function AuditLog({ businessId }: { businessId?: number }) {
  const [page, setPage] = useState(1);
  const log = useQuery({
    queryKey: ['audit', businessId ?? 'all', page],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/audit-log', { params: { query: { business_id: businessId, page, per_page: 25 } } })),
  });
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made by a person or a key, newest first.</p>
      {log.isPending && <Loading what="the audit log" />}
      {log.error && <LoadError error={log.error} retry={() => log.refetch()} />}
      {log.data && log.data.items.length === 0 && <p>Nothing changed yet.</p>}
      {log.data && log.data.items.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Record</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {log.data.items.map((e) => (
                <tr key={e.id}>
                  <td>
                    <Time at={e.at} />
                  </td>
                  <td>{e.actor.type === 'operator_key' ? 'operator key' : e.actor.email}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>{e.target_type ? `${e.target_type} ${e.target_id ?? ''}` : '—'}</td>
                  <td>
                    <Change entry={e} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.data && <Pager page={page} pages={log.data.pages} onPage={setPage} />}
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
