// The shell: sign-in when nobody is signed in, otherwise the navigation of the signed-in kind of
// user and the page the address names.
import { useEffect, useRef } from 'react';
import type { ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, navigate, useLocation } from './router';
import { signOut, useCredential } from './session';
import { SignIn } from './pages/SignIn';
import { operatorPage, OPERATOR_NAV } from './pages/operator/routes';
import { merchantPage, MERCHANT_NAV } from './pages/merchant/routes';

export function App() {
  const who = useCredential();
  const { path } = useLocation();
  const queries = useQueryClient();
  useEffect(() => {
    if (!who) queries.clear();
  }, [who, queries]);
  if (!who) return <SignIn />;
  const nav = who.kind === 'operator' ? OPERATOR_NAV : MERCHANT_NAV;
  const page = who.kind === 'operator' ? operatorPage(path) : merchantPage(path);
  return (
    <Shell nav={nav} path={path} title={who.kind === 'operator' ? 'Operator console' : 'Merchant portal'}>
      {page ?? <NotFound />}
    </Shell>
  );
}

function Shell({ nav, path, title, children }: { nav: readonly { to: string; label: string }[]; path: string; title: string; children: ReactNode }) {
  const main = useRef<HTMLElement>(null);
  // After a navigation, focus moves to the page so keyboard and screen-reader users start there.
  useEffect(() => {
    main.current?.focus();
  }, [path]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">PayCollect · {title}</span>
        <nav aria-label="Main">
          <ul>
            {nav.map((n) => (
              <li key={n.to}>
                <Link to={n.to} aria-current={path === n.to || path.startsWith(n.to + '/') ? 'page' : undefined}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="link" onClick={() => { signOut(); navigate('/', { replace: true }); }}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. Use the navigation above, or go to the <Link to="/">start page</Link>.
      </p>
    </>
  );
}
