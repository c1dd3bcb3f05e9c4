// People: the users of the deployment (operators) or of one business (its team), their roles, the
// pending invitations and a form to invite someone. Nobody can grant a role above their own; the
// server checks it, the form only offers the roles of the right kind.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { roleName, useSession } from '../../session';
import type { Role, User } from '../../session';
import { Guard } from '../../ui/guard';
import { FormError, SelectField, TextField } from '../../ui/forms';
import { Pager, useCursorList } from '../../ui/paging';
import { LoadError, Loading, Section, Time } from '../../ui/parts';
import { DataTable } from '../../ui/table';

const OPERATOR_ROLES: Role[] = ['operator_admin', 'operator_support'];
const MERCHANT_ROLES: Role[] = ['merchant_owner', 'merchant_developer', 'merchant_viewer'];

/** `businessId`: the team of one business; without it, every user (operator admins only). */
export function People({ businessId, title }: { businessId?: number; title: string }) {
  const { list: users, pages } = useCursorList(['users', businessId ?? 'all'], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/users', { params: { query: { business_id: businessId, cursor, per_page: 25 } } })),
  );
  return (
    <>
      <h1>{title}</h1>
      <Section title="People">
        {users.isPending && <Loading what="people" />}
        {users.error && <LoadError error={users.error} retry={() => users.refetch()} />}
        {users.data && (
          <DataTable
            rows={users.data.items}
            rowKey={(u) => u.id}
            columns={[
              { head: 'Email', cell: (u) => <>{u.email}{u.name ? <span className="muted"> ({u.name})</span> : null}</> },
              { head: 'Role', cell: (u) => <RoleChoice person={u} /> },
              { head: 'Business', cell: (u) => u.business_id ?? '—' },
              { head: '2FA', cell: (u) => (u.totp_enabled ? 'on' : 'off') },
              { head: 'Last sign-in', cell: (u) => <Time at={u.last_login_at} /> },
              { head: 'Access', cell: (u) => <AccessSwitch person={u} /> },
            ]}
          />
        )}
        <Pager pages={pages} total={users.data?.total} />
      </Section>
      <Invitations businessId={businessId} />
    </>
  );
}

/** A change to a person, and the list brought up to date after it. */
function usePersonUpdate(person: User) {
  const queries = useQueryClient();
  const update = useMutation({
    mutationFn: (body: Admin['UserUpdate']) => unwrap(admin.PATCH('/v1/admin/users/{user_id}', { params: { path: { user_id: person.id } }, body })),
    onSettled: () => queries.invalidateQueries({ queryKey: ['users'] }),
  });
  return { update, self: person.id === useSession().user.id };
}

function RoleChoice({ person }: { person: User }) {
  const { update, self } = usePersonUpdate(person);
  const roles = person.business_id === null ? OPERATOR_ROLES : MERCHANT_ROLES;
  return (
    <>
      <select aria-label={`Role of ${person.email}`} value={person.role} disabled={self || update.isPending} onChange={(e) => update.mutate({ role: e.target.value as Role })}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {roleName(r)}
          </option>
        ))}
      </select>
      <FormError error={update.error} />
    </>
  );
}

function AccessSwitch({ person }: { person: User }) {
  const { update, self } = usePersonUpdate(person);
  return (
    <>
      <button type="button" className="small" disabled={self || update.isPending} onClick={() => update.mutate({ disabled: !person.disabled })}>
        {person.disabled ? `Enable ${person.email}` : `Disable ${person.email}`}
      </button>
      <FormError error={update.error} />
    </>
  );
}

function Invitations({ businessId }: { businessId?: number }) {
  const queries = useQueryClient();
  const { list: pending, pages } = useCursorList(['invitations', businessId ?? 'all'], (cursor) =>
    unwrapPage(admin.GET('/v1/admin/invitations', { params: { query: { business_id: businessId, cursor, per_page: 25 } } })),
  );
  const roles = businessId === undefined ? [...OPERATOR_ROLES, ...MERCHANT_ROLES] : MERCHANT_ROLES;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>(roles[roles.length - 1]);
  const [business, setBusiness] = useState(businessId ? String(businessId) : '');
  const invite = useMutation({
    mutationFn: () => {
      const forBusiness = MERCHANT_ROLES.includes(role as Role) ? Number(business) : undefined;
      return unwrap(admin.POST('/v1/admin/invitations', { body: { email: email.trim(), role: role as Role, ...(forBusiness ? { business_id: forBusiness } : {}) } }));
    },
    onSuccess: async () => {
      setEmail('');
      await queries.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => unwrap(admin.DELETE('/v1/admin/invitations/{invitation_id}', { params: { path: { invitation_id: id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <Section title="Invitations">
      {pending.data && pending.data.items.length === 0 && <p>No invitation waiting.</p>}
      {pending.data && pending.data.items.length > 0 && (
        <ul className="plain">
          {pending.data.items.map((i) => (
            <li key={i.id}>
              {i.email} as {roleName(i.role)}, expires <Time at={i.expires_at} />{' '}
              <button type="button" className="small" onClick={() => revoke.mutate(i.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <Pager pages={pages} total={pending.data?.total} />
      <FormError error={revoke.error ?? pending.error} />
      <Guard need="team">
        <form onSubmit={submit} aria-label="Invite someone" className="inline-form">
          <TextField label="Email" name="email" type="email" required error={invite.error} value={email} onValue={setEmail} />
          <SelectField label="Role" name="role" error={invite.error} options={roles} optionName={(r) => roleName(r as Role)} value={role} onValue={setRole} />
          {businessId === undefined && MERCHANT_ROLES.includes(role as Role) && (
            <TextField label="Business id" name="business_id" inputMode="numeric" required error={invite.error} value={business} onValue={setBusiness} />
          )}
          <button type="submit" disabled={invite.isPending}>
            Send invitation
          </button>
          <FormError error={invite.error} shown={['email', 'role', 'business_id']} />
        </form>
        {invite.isSuccess && <p role="status">Invitation sent to {invite.data.data.email}; the link works for 72 hours.</p>}
      </Guard>
    </Section>
  );
}
