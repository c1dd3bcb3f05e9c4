// The audit log: who changed what and when, each change as `field: before → after` (secrets never
// appear), filtered by action, person and time window (kept in the address, as the collection search
// is). The table's scroll region takes keyboard focus, so a keyboard user can scroll it sideways.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { admin, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { navigate, useLocation } from '../../router';
import { ROLE_NAMES } from '../../session';
import { Field, TextField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';
import { localInputOf, utcOf, zoneName } from '../../ui/values';

const BASE = '/audit';

interface Filters {
  action?: string;
  /** a person's user id, as the address holds it (the API judges it) */
  person?: string;
  from?: string;
  to?: string;
}

function filtersOf(query: URLSearchParams): Filters {
  const opt = (k: string) => query.get(k) || undefined;
  return { action: opt('action'), person: opt('person'), from: opt('from'), to: opt('to') };
}

function addressOf(f: Filters): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  const text = q.toString();
  return text ? `${BASE}?${text}` : BASE;
}

export function AuditLog({ businessId }: { businessId?: number }) {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const { list, pages } = useCursorList(['audit', businessId ?? 'all', filters], (cursor) =>
    unwrapPage(
      admin.GET('/v1/admin/audit-log', {
        params: {
          query: {
            business_id: businessId,
            action: filters.action,
            actor_user_id: filters.person as unknown as number | undefined,
            from: filters.from,
            to: filters.to,
            cursor,
            per_page: 25,
          },
        },
      }),
    ),
  );
  const people = useQuery({
    queryKey: ['audit-people', businessId ?? 'all'],
    queryFn: async () => (await unwrapPage(admin.GET('/v1/admin/users', { params: { query: { business_id: businessId, per_page: 100 } } }))).items,
  });
  const filtered = Object.values(filters).some(Boolean);
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made by a person or a key, and every refused sign-in or code, newest first.</p>
      <FilterForm key={query.toString()} filters={filters} people={people.data ?? []} error={list.error} />
      {list.isPending && <Loading what="the audit log" />}
      {list.error && <LoadError error={list.error} retry={() => list.refetch()} />}
      {list.data && list.data.items.length === 0 && <p>{filtered ? 'No entry matches these filters.' : 'Nothing changed yet.'}</p>}
      {list.data && list.data.items.length > 0 && (
        <DataTable
          label="Audit entries"
          rows={list.data.items}
          rowKey={(e) => e.id}
          columns={[
            { head: 'When', cell: (e) => <Time at={e.at} /> },
            { head: 'Who', cell: (e) => whoOf(e.actor) },
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

function whoOf(actor: Admin['AuditEntry']['actor']): string {
  if (actor.type === 'operator_key') return 'operator key';
  if (actor.type === 'anonymous') return 'not signed in';
  if (actor.type === 'api_token') return `API token ${actor.email ?? ''}`.trim();
  return actor.email ?? `user #${actor.user_id}`;
}

function FilterForm({ filters, people, error }: { filters: Filters; people: Admin['User'][]; error: unknown }) {
  const [f, setF] = useState({
    action: filters.action ?? '',
    person: filters.person ?? '',
    from: localInputOf(filters.from) || (filters.from ?? ''),
    to: localInputOf(filters.to) || (filters.to ?? ''),
  });
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(
      addressOf({
        action: f.action.trim() || undefined,
        person: f.person || undefined,
        from: f.from ? utcOf(f.from, false) : undefined,
        to: f.to ? utcOf(f.to, true) : undefined,
      }),
    );
  };
  return (
    <form onSubmit={submit} aria-label="Filter the audit log" className="search">
      <TextField label="Action" name="action" hint="e.g. updateApiToken, loginFailed" error={error} value={f.action} onValue={set('action')} />
      <Field label="Person" name="actor_user_id" error={error}>
        {(a) => (
          <select {...a} value={f.person} onChange={(e) => set('person')(e.target.value)}>
            <option value="">Anyone</option>
            {f.person && !people.some((p) => String(p.id) === f.person) && <option value={f.person}>user #{f.person}</option>}
            {people.map((p) => (
              <option key={p.id} value={String(p.id)}>
                {p.email}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TextField label={`From (${zoneName()})`} name="from" type="datetime-local" className="when" error={error} value={f.from} onValue={set('from')} />
      <TextField label={`To (${zoneName()})`} name="to" type="datetime-local" className="when" error={error} value={f.to} onValue={set('to')} />
      <button type="submit">Filter</button>
      {Object.values(filters).some(Boolean) && (
        <button type="button" className="secondary" onClick={() => navigate(BASE)}>
          Clear filters
        </button>
      )}
    </form>
  );
}

/**
 * A recorded value as a person reads it: a role in words ("Viewer", from the shared role-names table), text
 * as typed, `none` for null, JSON for a list or an object.
 */
function shown(v: unknown, field?: string): string {
  if (v === undefined || v === null) return 'none';
  if (field === 'role' && typeof v === 'string' && Object.hasOwn(ROLE_NAMES, v)) return ROLE_NAMES[v as keyof typeof ROLE_NAMES];
  if (typeof v === 'string') return v === '' ? '""' : v;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** The record's change: each field that changed as `field: before → after`; what a new record or an attempt holds as `field: value`. */
function Change({ entry }: { entry: Admin['AuditEntry'] }) {
  const before = entry.before as Record<string, unknown> | null;
  const after = entry.after as Record<string, unknown> | null;
  if (before === null && after === null) return <span className="muted">—</span>;
  if (before === null || after === null) {
    const record = (before ?? after) as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => k !== 'updated_at' && k !== 'created_at');
    return (
      <div className="small">
        {after === null ? <strong>Removed</strong> : /^(create|invite)/.test(entry.action) && <strong>Created</strong>}
        <ul className="plain">
          {keys.map((k) => (
            <li key={k}>
              <code>{k}</code>: {shown(record[k], k)}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => k !== 'updated_at' && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  if (keys.length === 0) return <span className="muted">no field changed</span>;
  return (
    <ul className="plain small">
      {keys.map((k) => (
        <li key={k}>
          <code>{k}</code>: {shown(before[k], k)} → {shown(after[k], k)}
        </li>
      ))}
    </ul>
  );
}
