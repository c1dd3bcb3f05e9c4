// Signing in: email and password, then the second factor (an authenticator code or a recovery code)
// for users who have one, or the two-factor set-up that operators must do before anything else.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { Link } from '../../router';
import { farewellMessage, forget, remember } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { Notice } from '../../ui/parts';

export function Login() {
  const queries = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const why = farewellMessage();
  const attempt = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/session', { body: { email: email.trim(), password } })),
    onSuccess: (body) => remember(queries, body.data),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    attempt.mutate();
  };
  return (
    <AuthPage title="Sign in to PayCollect">
      {why && <Notice>{why}</Notice>}
      <form onSubmit={submit} aria-label="Sign in">
        <TextField label="Email" name="email" type="email" autoComplete="username" required error={attempt.error} value={email} onValue={setEmail} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required error={attempt.error} value={password} onValue={setPassword} />
        <FormError error={attempt.error} shown={['email', 'password']} />
        <button type="submit" disabled={attempt.isPending}>
          Sign in
        </button>
      </form>
      <p>
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
    </AuthPage>
  );
}

export function SecondFactor() {
  const queries = useQueryClient();
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const attempt = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/session/totp', { body: useRecovery ? { recovery_code: code.trim() } : { code: code.trim() } })),
    onSuccess: (body) => remember(queries, body.data),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    attempt.mutate();
  };
  return (
    <AuthPage title="Two-factor authentication">
      <form onSubmit={submit} aria-label="Second factor">
        {useRecovery ? (
          <TextField label="Recovery code" name="recovery_code" autoComplete="off" autoFocus required error={attempt.error} value={code} onValue={setCode} hint="Each recovery code works once." />
        ) : (
          <TextField label="Authenticator code" name="code" inputMode="numeric" autoComplete="one-time-code" autoFocus required error={attempt.error} value={code} onValue={setCode} hint="The 6-digit code your authenticator app shows now." />
        )}
        <FormError error={attempt.error} shown={['code', 'recovery_code']} />
        <button type="submit" disabled={attempt.isPending}>
          Continue
        </button>{' '}
        <button type="button" className="secondary" onClick={() => { setUseRecovery(!useRecovery); setCode(''); }}>
          {useRecovery ? 'Use an authenticator code' : 'Use a recovery code'}
        </button>
      </form>
      <SignOutLink />
    </AuthPage>
  );
}

export function SignOutLink() {
  const queries = useQueryClient();
  const out = useMutation({
    mutationFn: () => unwrap(admin.DELETE('/v1/admin/session')),
    onSettled: () => forget(queries),
  });
  return (
    <button type="button" className="link" onClick={() => out.mutate()}>
      Sign out
    </button>
  );
}

export function AuthPage({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main id="main" className="signin">
      <h1>{title}</h1>
      {children}
    </main>
  );
}
