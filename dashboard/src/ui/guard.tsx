// Forms a role may not submit stay visible but disabled, with the reason; the server refuses the
// same calls (403) whatever the page shows.
import type { ReactNode } from 'react';
import { roleName, useCan, useSession } from '../session';
import type { Ability } from '../session';

export function Guard({ need, children }: { need: Ability; children: ReactNode }) {
  const allowed = useCan(need);
  const { user } = useSession();
  if (allowed) return <>{children}</>;
  return (
    <fieldset disabled className="readonly">
      <p className="muted">Your role ({roleName(user.role)}) can read this but not change it.</p>
      {children}
    </fieldset>
  );
}
