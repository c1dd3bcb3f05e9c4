// Two-factor set-up: the secret to add to an authenticator app (as a QR code, as text and as a link),
// a code to confirm it, then the recovery codes, shown once. Replacing an authenticator already in
// use (a new phone) asks for the password and a code of the authenticator in use first; the old one
// works until the new one is confirmed.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { admin, unwrap } from '../../api';
import { remember } from '../../session';
import type { Session } from '../../session';
import { FormError, TextField } from '../../ui/forms';
import { QrCode } from '../../ui/qr';
import { AuthPage, SignOutLink } from './SignIn';

export function EnrolTotp({ onDone, required, replacing = false }: { onDone?: () => void; required: boolean; replacing?: boolean }) {
  const [finished, setFinished] = useState<{ codes: string[]; session: Session } | null>(null);
  const start = useMutation({
    mutationFn: (proof: Proof | null) => unwrap(admin.POST('/v1/admin/me/totp', proof === null ? {} : { body: proof })),
  });
  if (finished) return <RecoveryCodes {...finished} onDone={onDone} />;
  const secret = start.data?.data;
  return (
    <AuthPage title={replacing ? 'Replace your authenticator' : 'Set up two-factor authentication'}>
      <p>
        {required ? 'Operators sign in with a second factor. ' : ''}Add PayCollect to an authenticator app (Google Authenticator, 1Password, Aegis…), then type
        the code it shows.{replacing ? ' Your current authenticator keeps working until the new one is confirmed.' : ''}
      </p>
      {!secret && <StartEnrolment replacing={replacing} error={start.error} pending={start.isPending} onStart={(proof) => start.mutate(proof)} />}
      {secret && <ConfirmEnrolment secret={secret} onConfirmed={setFinished} />}
      {required && <SignOutLink />}
      {onDone && !required && (
        <button type="button" className="link" onClick={onDone}>
          Cancel
        </button>
      )}
    </AuthPage>
  );
}

interface Proof {
  current_password: string;
  current_code: string;
}

function StartEnrolment({ replacing, error, pending, onStart }: { replacing: boolean; error: unknown; pending: boolean; onStart: (proof: Proof | null) => void }) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  if (!replacing) {
    return (
      <>
        <FormError error={error} />
        <button type="button" disabled={pending} onClick={() => onStart(null)}>
          Show my secret
        </button>
      </>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onStart({ current_password: password, current_code: code.trim() });
  };
  return (
    <form onSubmit={submit} aria-label="Confirm it is you">
      <TextField label="Your password" name="current_password" type="password" autoComplete="current-password" required error={error} value={password} onValue={setPassword} />
      <TextField label="Code from your current authenticator" name="current_code" inputMode="numeric" autoComplete="one-time-code" required error={error} value={code} onValue={setCode} />
      <FormError error={error} shown={['current_password', 'current_code']} />
      <button type="submit" disabled={pending}>
        Show my new secret
      </button>
    </form>
  );
}

function ConfirmEnrolment({ secret, onConfirmed }: { secret: { secret: string; otpauth_url: string }; onConfirmed: (f: { codes: string[]; session: Session }) => void }) {
  const [code, setCode] = useState('');
  const confirm = useMutation({
    mutationFn: () => unwrap(admin.POST('/v1/admin/me/totp/confirm', { body: { code: code.trim() } })),
    onSuccess: (body) => onConfirmed({ codes: body.data.recovery_codes, session: body.data.session }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    confirm.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Confirm two-factor authentication">
      <QrCode text={secret.otpauth_url} label="QR code of your two-factor secret: scan it with your authenticator app" />
      <dl className="pairs">
        <dt>Or type the secret into the app</dt>
        <dd>
          <code data-testid="totp-secret">{secret.secret}</code>
        </dd>
        <dt>Or open on this device</dt>
        <dd>
          <a href={secret.otpauth_url}>Add to authenticator app</a>
        </dd>
      </dl>
      <TextField label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" required error={confirm.error} value={code} onValue={setCode} />
      <FormError error={confirm.error} shown={['code']} />
      <button type="submit" disabled={confirm.isPending}>
        Confirm
      </button>
    </form>
  );
}

function RecoveryCodes({ codes, session, onDone }: { codes: string[]; session: Session; onDone?: () => void }) {
  const queries = useQueryClient();
  return (
    <AuthPage title="Store your recovery codes">
      <div className="secret" role="region" aria-label="Recovery codes">
        <p>
          <strong>These codes are shown only this once.</strong> Each signs you in once if you lose your authenticator; any earlier codes no longer work. Store them
          somewhere safe.
        </p>
        <ul className="codes">
          {codes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <button
          type="button"
          autoFocus
          onClick={() => {
            remember(queries, session);
            onDone?.();
          }}
        >
          I have stored the codes
        </button>
      </div>
    </AuthPage>
  );
}
