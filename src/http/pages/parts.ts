// What the hosted payment pages share (docs/contract/hosted-pages.md): the request a method's page is
// given, the answer its form gives, the shape of a method's pages, and where the customer goes at the end
// (the result page, the merchant's redirect_url). The pages of each method and the processor's checkout
// import these from here; index.ts mounts them all.
import { isFinal, STATUS_MESSAGES } from '../../domain/collection';
import type { CollectionRow, FinalStatus } from '../../domain/collection';
import type { Services } from '../../wiring';
import { escapeHtml, page } from './layout';

export interface PageRequest {
  services: Services;
  row: CollectionRow;
  /** hidden fields every form must carry */
  hidden: string;
  action: string;
}

export type Answer = { final: FinalStatus; message?: string } | { html: string; status?: number };

export interface MethodPages {
  render(p: PageRequest): string | Promise<string>;
  answer(p: PageRequest, form: Record<string, string>): Promise<Answer>;
}

export function redirectTarget(row: CollectionRow): string | null {
  if (!row.redirect_url) return null;
  const url = new URL(row.redirect_url);
  url.searchParams.set('gateway_reference', row.gateway_reference);
  url.searchParams.set('merchant_reference', row.merchant_reference);
  url.searchParams.set('status', row.status);
  return url.toString();
}

/** How often a page showing a pending payment reloads itself (a mobile-money customer approves on the phone). */
export const PENDING_REFRESH_SECONDS = 5;

export function resultPage(s: Services, row: CollectionRow): string {
  const target = redirectTarget(row);
  const link = target ? `<a href="${escapeHtml(target)}"><button class="primary" type="button">Return to the merchant</button></a>` : '';
  const pending = !isFinal(row.status);
  const waiting = pending ? '<p class="note">This page refreshes by itself until the payment is decided.</p>' : '';
  return page(STATUS_MESSAGES[row.status], `<h1>${escapeHtml(STATUS_MESSAGES[row.status])}</h1>
<p>Reference ${escapeHtml(row.gateway_reference)}</p>${waiting}${link}`, s.config.appEnv === 'sandbox', pending ? PENDING_REFRESH_SECONDS : undefined);
}
