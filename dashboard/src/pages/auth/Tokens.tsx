// The pages an emailed link opens without a session: accepting an invitation and resetting a password.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { admin, ApiError, unwrap } from '../../api';
import type { Admin } from '../../api';
import { roleName } from '../../session';
import { Link, useLocation } from '../../router';
import { FormError, TextField } from '../../ui/forms';
import { Loading, Notice, Time } from '../../ui/parts';
import { AuthPage } from './SignIn';

const PASSWORD_HINT = '12 to 128 characters; a few unrelated words make a strong one.';

export function AcceptInvitation() {
  const token = useLocation().query.get('token') ?? '';
  // what the invitation is for, before anyone chooses a password: business, role, the account's email
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => unwrap(admin.POST('/v1/admin/invitations/lookup', { body: { token } })),
    enabled: token !== '',
    retry: false,
  });
  if (!token) {
    return (
      <AuthPage title="Accept your invitation">
        <p role="alert" className="error">This link has no token: open the link from the invitation email again.</p>
      </AuthPage>
    );
  }
  if (invitation.isPending) {
    return (
      <AuthPage title="Accept your invitation">
        <Loading what="your invitation" />
      </AuthPage>
    );
  }
  if (invitation.error) {
    // used, withdrawn, expired or unknown: nothing to retry, the API says what to do
    const message = invitation.error instanceof ApiError ? invitation.error.message : String(invitation.error);
    return (
      <AuthPage title="Accept your invitation">
        <p role="alert" className="error">
          {message}.
        </p>
        <p>
          <Link to="/">Go to sign-in</Link>
        </p>
      </AuthPage>
    );
  }
  return <AcceptForm token={token} invitation={invitation.data.data} />;
}

function AcceptForm({ token, invitation: i }: { token: string; invitation: Admin['InvitationPreview'] }) {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const accept = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/invitations/accept', { body: { token, password, ...(name ? { name } : {}) } })) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    accept.mutate();
  };
  if (accept.isSuccess) {
    return (
      <AuthPage title="Welcome to PayCollect">
        <Notice>Your account {accept.data.data.email} is ready.</Notice>
        <Link to="/">Sign in</Link>
      </AuthPage>
    );
  }
  return (
    <AuthPage title="Accept your invitation">
      <p data-testid="invitation">
        You are invited to {i.business_name === null ? 'the PayCollect operator console' : <strong>{i.business_name}</strong>} as <strong>{roleName(i.role)}</strong>, with the
        email address <strong>{i.email}</strong>
        {i.invited_by ? `, by ${i.invited_by}` : ''}. You sign in with that address. The link works until <Time at={i.expires_at} />.
      </p>
      <form onSubmit={submit} aria-label="Accept invitation">
        <TextField label="Your name" name="name" autoComplete="name" error={accept.error} value={name} onValue={setName} />
        <TextField label="Choose a password" name="password" type="password" autoComplete="new-password" required error={accept.error} value={password} onValue={setPassword} hint={PASSWORD_HINT} />
        <FormError error={accept.error} shown={['name', 'password']} />
        <button type="submit" disabled={accept.isPending}>
          Create my account
        </button>
      </form>
    </AuthPage>
  );
}

export function ResetPassword() {
  const token = useLocation().query.get('token');
  return token ? <CompleteReset token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const ask = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/password-reset', { body: { email: email.trim() } })) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    ask.mutate();
  };
  return (
    <AuthPage title="Reset your password">
      {ask.isSuccess ? (
        <Notice>If an account uses {email}, a link to choose a new password is on its way. It works once, for 30 minutes.</Notice>
      ) : (
        <form onSubmit={submit} aria-label="Reset password">
          <TextField label="Email" name="email" type="email" autoComplete="username" required error={ask.error} value={email} onValue={setEmail} />
          <FormError error={ask.error} shown={['email']} />
          <button type="submit" disabled={ask.isPending}>
            Email me a link
          </button>
        </form>
      )}
      <p>
        <Link to="/">Back to sign-in</Link>
      </p>
    </AuthPage>
  );
}

function CompleteReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const complete = useMutation({ mutationFn: () => unwrap(admin.POST('/v1/admin/password-reset/complete', { body: { token, new_password: password } })) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    complete.mutate();
  };
  return (
    <AuthPage title="Choose a new password">
      {complete.isSuccess ? (
        <Notice>
          Password changed; every other session of yours has ended. <Link to="/">Sign in</Link>
        </Notice>
      ) : (
        <form onSubmit={submit} aria-label="Choose a new password">
          <TextField label="New password" name="new_password" type="password" autoComplete="new-password" required error={complete.error} value={password} onValue={setPassword} hint={PASSWORD_HINT} />
          <FormError error={complete.error} shown={['new_password']} />
          <button type="submit" disabled={complete.isPending}>
            Change password
          </button>
        </form>
      )}
    </AuthPage>
  );
}
