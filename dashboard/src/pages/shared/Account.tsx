// The signed-in person's own account: who they are and their two-factor authentication.
import { useState } from 'react';
import { useSession } from '../../session';
import { Notice, Section, Time } from '../../ui/parts';
import { EnrolTotp } from '../auth/SignIn';

export function Account() {
  const { user, idle_expires_at, absolute_expires_at } = useSession();
  const [enrolling, setEnrolling] = useState(false);
  if (enrolling) return <EnrolTotp required={false} onDone={() => setEnrolling(false)} />;
  return (
    <>
      <h1>Your account</h1>
      <Section title="You">
        <dl className="pairs">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role.replace('_', ' ')}</dd>
          <dt>Session ends</dt>
          <dd>
            after 30 minutes without activity (now <Time at={idle_expires_at} />), at the latest <Time at={absolute_expires_at} />
          </dd>
        </dl>
      </Section>
      <Section title="Two-factor authentication">
        {user.totp_enabled ? (
          <Notice>On: you sign in with a code from your authenticator app.</Notice>
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
