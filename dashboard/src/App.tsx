// The shell: the session decides the page. Nobody signed in: sign-in (or an emailed link's page);
// a second factor or its set-up pending: that step; signed in: the navigation of the user's role and
// the page the address names.
import { useEffect, useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, ApiError, unwrap } from './api';
import { Link, useLocation } from './router';
import { adopt, forget, isOperator, roleName, SESSION_KEY, whenCsrfRefused, whenSessionEnds } from './session';
import type { NavItem, Session, User } from './session';
import { EnrolTotp } from './pages/auth/EnrolTotp';
import { AuthPage, Login, SecondFactor, SignOutLink } from './pages/auth/SignIn';
import { AcceptInvitation, ResetPassword } from './pages/auth/Tokens';
import { operatorNav, operatorPage } from './pages/operator/routes';
import { merchantNav, merchantPage } from './pages/merchant/routes';
import { LoadError, Loading } from './ui/parts';

/** The current session, or null when the server knows none (401). */
async function currentSession(): Promise<Session | null> {
  try {
    return (await unwrap(admin.GET('/v1/admin/session'))).data;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export function App() {
  const queries = useQueryClient();
  const { path } = useLocation();
  const session = useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      const s = await currentSession();
      adopt(s);
      return s;
    },
    staleTime: Infinity,
  });
  useEffect(() => {
    whenSessionEnds(() => forget(queries));
    whenCsrfRefused(() => void queries.invalidateQueries({ queryKey: SESSION_KEY }));
  }, [queries]);

  if (session.isPending) return <Loading what="your session" />;
  if (session.error) return <LoadError error={session.error} retry={() => session.refetch()} />;
  const s = session.data;
  if (!s) {
    if (path === '/accept-invitation') return <AcceptInvitation />;
    if (path === '/reset-password') return <ResetPassword />;
    return <Login />;
  }
  // An emailed link (an invitation, a password reset) is for someone signed out; say whose session is open.
  if (path === '/accept-invitation' || path === '/reset-password') return <SignedInElsewhere email={s.user.email} />;
  if (s.state === 'totp_required') return <SecondFactor />;
  if (s.state === 'totp_enrolment_required') return <EnrolTotp required />;
  const operator = isOperator(s.user);
  const page = operator ? operatorPage(path, s.user) : merchantPage(path, s.user);
  return (
    <Shell nav={operator ? operatorNav(s.user) : merchantNav(s.user, s.waiting_for_you)} home="/overview" path={path} user={s.user} title={operator ? 'Operator console' : 'Merchant portal'}>
      {page ?? <NotFound />}
    </Shell>
  );
}

/**
 * The header: on a desktop the navigation, the person and Sign out on one or two lines; on a phone (40rem
 * and narrower, styles.css) they fold behind a "Menu" button, a disclosure that opens below the header and
 * closes when a page is chosen or on Escape, so the header keeps to one line of the screen.
 */
function Shell({ nav, home, path, user, title, children }: { nav: NavItem[]; home: string; path: string; user: User; title: string; children: ReactNode }) {
  const main = useRef<HTMLElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  // the start address shows the Overview (a merchant's or an operator's): its link is the current page
  const here = path === '/' ? home : path;
  // After a navigation, focus moves to the page so keyboard and screen-reader users start there.
  useEffect(() => {
    setOpen(false);
    main.current?.focus();
  }, [path]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open) return;
    setOpen(false);
    toggle.current?.focus();
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top" onKeyDown={onKeyDown}>
        <span className="brand">PayCollect · {title}</span>
        <button ref={toggle} type="button" className="menu-toggle" aria-expanded={open} aria-controls="top-menu" onClick={() => setOpen(!open)}>
          Menu
        </button>
        <div id="top-menu" className={open ? 'menu open' : 'menu'}>
          <nav aria-label="Main">
            <ul>
              {nav.map((n) => (
                <li key={n.to}>
                  <Link to={n.to} aria-current={here === n.to || here.startsWith(n.to + '/') ? 'page' : undefined} onClick={() => setOpen(false)}>
                    {n.label}
                    {n.badge && (
                      <span className="badge" role="img" aria-label={n.badge.name}>
                        {n.badge.count}
                      </span>
                    )}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <span className="who">
            <Link to="/account" onClick={() => setOpen(false)}>
              {user.email}
            </Link>{' '}
            <span className="tag">{roleName(user.role)}</span>
          </span>
          <SignOutLink />
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function SignedInElsewhere({ email }: { email: string }) {
  return (
    <AuthPage title="You are signed in">
      <p>
        This link is for someone who is not signed in, and this browser is signed in as {email}. Sign out, and the
        link's page opens here.
      </p>
      <SignOutLink />
    </AuthPage>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address, or your role cannot open it. Use the navigation above, or go to the <Link to="/">start page</Link>.
      </p>
    </>
  );
}
