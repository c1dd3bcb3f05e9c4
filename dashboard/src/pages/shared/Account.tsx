// The signed-in person's own account: who they are, their password and their two-factor authentication.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { remember, roleName, useSession } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Notice, Section, Time } from '../../ui/parts';
import { EnrolTotp } from '../auth/EnrolTotp';

export function Account() {
  const { user, idle_expires_at, absolute_expires_at, recovery_codes_left: left } = useSession();
  const [enrolling, setEnrolling] = useState(false);
  if (enrolling) return <EnrolTotp required={false} replacing={user.totp_enabled} onDone={() => setEnrolling(false)} />;
  return (
    <>
      <h1>Your account</h1>
      <Section title="You">
        <dl className="pairs">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{roleName(user.role)}</dd>
          <dt>Session ends</dt>
          <dd>
            at <Time at={idle_expires_at} /> if you do nothing until then (each page you open moves that 30 minutes on), and at the latest at <Time at={absolute_expires_at} />
          </dd>
        </dl>
      </Section>
      <ChangePassword />
      <Section title="Two-factor authentication">
        {user.totp_enabled ? (
          <>
            <Notice>On: you sign in with a code from your authenticator app.</Notice>
            <p className={left !== null && left <= 3 ? 'error' : undefined}>
              {left === 0
                ? 'You have no recovery codes left: replace the authenticator now to get new ones, or a lost phone locks you out.'
                : `You have ${left} recovery code${left === 1 ? '' : 's'} left, each good for one sign-in without your phone.`}
              {left !== null && left > 0 && left <= 3 && ' Replace the authenticator soon to get new ones.'}
            </p>
            <p>New phone, or lost your recovery codes? Replace the authenticator: you get a new secret and new recovery codes.</p>
            <button type="button" onClick={() => setEnrolling(true)}>
              Replace authenticator
            </button>
          </>
        ) : (
          <>
            <p>Off. Turn it on so a stolen password alone cannot open your account.</p>
            <button type="button" onClick={() => setEnrolling(true)}>
              Set up two-factor authentication
            </button>
          </>
        )}
      </Section>
    </>
  );
}

function ChangePassword() {
  const queries = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/me/password', { body: { current_password: current, new_password: next } })),
    onSuccess: (body) => {
      setCurrent('');
      setNext('');
      remember(queries, body.data);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate();
  };
  return (
    <Section title="Password">
      {change.isSuccess && <Notice>Password changed. You stay signed in here; every other session of yours has ended.</Notice>}
      <form onSubmit={submit} aria-label="Change password" className="form-grid">
        <TextField label="Current password" name="current_password" type="password" autoComplete="current-password" required error={change.error} value={current} onValue={setCurrent} />
        <TextField label="New password" name="new_password" type="password" autoComplete="new-password" required error={change.error} value={next} onValue={setNext} hint="12 to 128 characters; a few words are easiest to remember." />
        <div className="wide">
          <FormError error={change.error} shown={['current_password', 'new_password']} />
          <button type="submit" disabled={change.isPending}>
            Change password
          </button>
        </div>
      </form>
    </Section>
  );
}
