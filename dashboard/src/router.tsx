// A small history router for the app under /dashboard: a path pattern per page, links that are
// real anchors (open in a new tab, keyboard focusable), and navigation without reloads.
import { useSyncExternalStore } from 'react';
import type { AnchorHTMLAttributes, MouseEvent } from 'react';

export const BASE = '/dashboard';
const listeners = new Set<() => void>();

function subscribe(l: () => void) {
  listeners.add(l);
  window.addEventListener('popstate', l);
  return () => {
    listeners.delete(l);
    window.removeEventListener('popstate', l);
  };
}

function location(): string {
  return window.location.pathname + window.location.search;
}

/** The current path inside the app (without /dashboard) and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const full = useSyncExternalStore(subscribe, location);
  const url = new URL(full, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : url.pathname;
  return { path: path.replace(/\/+$/, '') || '/', query: url.searchParams };
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const href = BASE + (to === '/' ? '' : to);
  if (opts.replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

/** Matches `/businesses/:id` against a path; the named parts, decoded, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}

/** `onClick`: called first on every click (the menu closes on it); the navigation follows. */
export function Link({ to, onClick: then, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    then?.(e);
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={BASE + to} onClick={onClick} {...rest} />;
}
