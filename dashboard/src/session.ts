// The signed-in person: the session the server keeps (cookie pc_session, HttpOnly, so this code never
// sees it) as React Query holds it under SESSION_KEY, the CSRF token every change sends, and why the
// last session ended when it was not the person's own choice.
import { useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { components } from '../../generated/admin-api';

export type Session = components['schemas']['Session'];
export type User = components['schemas']['User'];
export type Role = components['schemas']['Role'];

export const SESSION_KEY = ['session'] as const;

/** A menu item; `badge`: a count beside it, with its accessible name (what it counts). */
export interface NavItem {
  to: string;
  label: string;
  badge?: { count: number; name: string };
}

let csrf: string | null = null;
let farewell: string | null = null;
let onEnded: (() => void) | null = null;
let onCsrfRefused: (() => void) | null = null;

export function csrfToken(): string | null {
  return csrf;
}

/** Takes the CSRF token of a session the server answered. */
export function adopt(session: Session | null): void {
  csrf = session?.csrf_token ?? null;
  if (session) farewell = null;
}

/** Keeps a session the server answered (login, second factor, enrolment) as the current one. */
export function remember(queries: QueryClient, session: Session | null): void {
  adopt(session);
  queries.setQueryData(SESSION_KEY, session);
}

/** No session any more: its data and every page's data go, so nothing of it shows to the next person. */
export function forget(queries: QueryClient): void {
  adopt(null);
  queries.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
  queries.setQueryData(SESSION_KEY, null);
}

export function whenSessionEnds(handler: () => void): void {
  onEnded = handler;
}

export function whenCsrfRefused(handler: () => void): void {
  onCsrfRefused = handler;
}

export function csrfRefused(): void {
  onCsrfRefused?.();
}

/** The server refused the session (expired, signed out elsewhere, user disabled): back to sign-in. */
export function sessionEnded(why: string): void {
  if (csrf === null) return;
  csrf = null;
  farewell = why;
  onEnded?.();
}

/** Why the last session ended, to say on the sign-in page; null after a plain sign-out. */
export function farewellMessage(): string | null {
  return farewell;
}

export function useSession(): Session {
  const { data } = useQuery<Session | null>({ queryKey: SESSION_KEY, enabled: false });
  if (!data) throw new Error('useSession outside a signed-in page');
  return data;
}

const OPERATOR_ROLES: Role[] = ['operator_admin', 'operator_support'];

export const isOperator = (u: User) => OPERATOR_ROLES.includes(u.role);

/** Each role in words, as people read it (a merchant's team has owners, developers and viewers). */
export const ROLE_NAMES: Record<Role, string> = {
  operator_admin: 'Operator admin',
  operator_support: 'Operator support',
  merchant_owner: 'Owner',
  merchant_developer: 'Developer',
  merchant_viewer: 'Viewer',
};

export const roleName = (role: Role): string => ROLE_NAMES[role];

/** What a role may do; the server checks the same rules on every call, the dashboard only hides what would be refused. */
const ABILITIES = {
  /** set up businesses, MIDs, wallets, rates, card key, verification */
  operate: ['operator_admin'],
  tokens: ['operator_admin', 'merchant_owner', 'merchant_developer'],
  resend: ['operator_admin', 'operator_support', 'merchant_owner', 'merchant_developer'],
  team: ['operator_admin', 'merchant_owner'],
  audit: ['operator_admin', 'merchant_owner'],
  requestGoLive: ['merchant_owner'],
  refund: ['operator_admin', 'merchant_owner', 'merchant_developer'],
  /** ask for a disbursement: a business's owners only (operators do not move merchants' money) */
  disburse: ['merchant_owner'],
  /** make a payment link under one of the business's API tokens: its owners and developers */
  createLinks: ['merchant_owner', 'merchant_developer'],
  deactivateLinks: ['operator_admin', 'merchant_owner'],
  /** accept a card dispute: a business's owners only (a dispute is the merchant's to answer) */
  acceptDisputes: ['merchant_owner'],
} satisfies Record<string, Role[]>;

export type Ability = keyof typeof ABILITIES;

export function can(user: User, ability: Ability): boolean {
  return (ABILITIES[ability] as Role[]).includes(user.role);
}

export function useCan(ability: Ability): boolean {
  return can(useSession().user, ability);
}
