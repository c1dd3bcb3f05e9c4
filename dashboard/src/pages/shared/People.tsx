// People: the users of the deployment (operators) or of one business (its team), their roles, the
// pending invitations and a form to invite someone. Nobody can grant a role above their own; the
// server checks it, the form only offers the roles of the right kind.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap, unwrapPage } from '../../api';
import type { Admin } from '../../api';
import { useSession } from '../../session';
import type { Role, User } from '../../session';
import { Guard } from '../../ui/guard';
import { FormError, SelectField, TextField } from '../../ui/forms';
import { LoadError, Loading, Section, Time } from '../../ui/parts';

const OPERATOR_ROLES: Role[] = ['operator_admin', 'operator_support'];
const MERCHANT_ROLES: Role[] = ['merchant_owner', 'merchant_developer', 'merchant_viewer'];

/** `businessId`: the team of one business; without it, every user (operator admins only). */
export function People({ businessId, title }: { businessId?: number; title: string }) {
  const users = useQuery({
    queryKey: ['users', businessId ?? 'all'],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/users', { params: { query: { business_id: businessId, per_page: 100 } } })),
  });
  return (
    <>
      <h1>{title}</h1>
      <Section title="People">
        {users.isPending && <Loading what="people" />}
        {users.error && <LoadError error={users.error} retry={() => users.refetch()} />}
        {users.data && (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Business</th>
                  <th scope="col">2FA</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">Access</th>
                </tr>
              </thead>
              <tbody>
                {users.data.items.map((u) => (
                  <PersonRow key={u.id} person={u} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <Invitations businessId={businessId} />
    </>
  );
}

function PersonRow({ person }: { person: User }) {
  const queries = useQueryClient();
  const me = useSession().user;
  const roles = person.business_id === null ? OPERATOR_ROLES : MERCHANT_ROLES;
  const update = useMutation({
    mutationFn: (body: Admin['UserUpdate']) => unwrap(admin.PATCH('/v1/admin/users/{user_id}', { params: { path: { user_id: person.id } }, body })),
    onSettled: () => queries.invalidateQueries({ queryKey: ['users'] }),
  });
  const self = person.id === me.id;
  return (
    <tr>
      <td>
        {person.email}
        {person.name ? <span className="muted"> ({person.name})</span> : null}
      </td>
      <td>
        <select aria-label={`Role of ${person.email}`} value={person.role} disabled={self || update.isPending} onChange={(e) => update.mutate({ role: e.target.value as Role })}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {r.replace('_', ' ')}
            </option>
          ))}
        </select>
        <FormError error={update.error} />
      </td>
      <td>{person.business_id ?? '—'}</td>
      <td>{person.totp_enabled ? 'on' : 'off'}</td>
      <td>
        <Time at={person.last_login_at} />
      </td>
      <td>
        <button type="button" className="small" disabled={self || update.isPending} onClick={() => update.mutate({ disabled: !person.disabled })}>
          {person.disabled ? `Enable ${person.email}` : `Disable ${person.email}`}
        </button>
      </td>
    </tr>
  );
}

function Invitations({ businessId }: { businessId?: number }) {
  const queries = useQueryClient();
  const pending = useQuery({
    queryKey: ['invitations', businessId ?? 'all'],
    queryFn: () => unwrapPage(admin.GET('/v1/admin/invitations', { params: { query: { business_id: businessId, per_page: 100 } } })),
  });
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
              {i.email} as {i.role.replace('_', ' ')}, expires <Time at={i.expires_at} />{' '}
              <button type="button" className="small" onClick={() => revoke.mutate(i.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError error={revoke.error ?? pending.error} />
      <Guard need="team">
        <form onSubmit={submit} aria-label="Invite someone" className="inline-form">
          <TextField label="Email" name="email" type="email" required error={invite.error} value={email} onValue={setEmail} />
          <SelectField label="Role" name="role" error={invite.error} options={roles} value={role} onValue={setRole} />
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
