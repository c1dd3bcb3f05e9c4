// Who is signed in, kept in sessionStorage (gone when the tab closes). Until people have accounts
// (issue 17's server side), an operator signs in with the operator key and a merchant with an API
// token's key and secret, exchanged for a short-lived access token.
import { useSyncExternalStore } from 'react';

export type Credential =
  | { kind: 'operator'; secret: string }
  | { kind: 'merchant'; secret: string; api_key: string; expires: number };

const KEY = 'paycollect.credential';
const listeners = new Set<() => void>();
let cached: Credential | null | undefined;
let farewell: string | null = null;

function read(): Credential | null {
  if (cached === undefined) {
    const raw = sessionStorage.getItem(KEY);
    cached = raw ? (JSON.parse(raw) as Credential) : null;
  }
  return cached;
}

function changed(next: Credential | null) {
  cached = next;
  if (next) sessionStorage.setItem(KEY, JSON.stringify(next));
  else sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
}

export function credential(): Credential | null {
  return read();
}

export function signIn(c: Credential): void {
  farewell = null;
  changed(c);
}

/** Ends the sign-in; `why` is shown on the sign-in page. */
export function signOut(why: string | null = null): void {
  farewell = why;
  changed(null);
}

/** Why the last sign-in ended, when it was not the user's own choice. */
export function signOutReason(): string | null {
  return farewell;
}

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useCredential(): Credential | null {
  return useSyncExternalStore(subscribe, read);
}
