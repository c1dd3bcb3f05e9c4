// payment_url of a collection whose processor has its own pages (Paystack, BTCPay Server): opening it
// sends the customer to the processor (303); the processor sends them back to /pay/{ref}/return, where
// the processor is asked for the outcome (never the query string) before the customer goes on to the
// merchant's redirect_url. Our own pages here only say what is happening and offer the next step.
import type { Response } from 'express';
import { isFinal } from '../../domain/collection';
import type { CollectionRow } from '../../domain/collection';
import type { Services } from '../../wiring';
import type { Opened } from '../../processor-requests/checkouts';
import { redirectTarget, resultPage } from './parts';
import { amountDue, escapeHtml, page } from './layout';

function paymentUrl(row: CollectionRow): string {
  return `/pay/${encodeURIComponent(row.gateway_reference)}?token=${encodeURIComponent(row.page_token ?? '')}`;
}

function send(s: Services, res: Response, status: number, title: string, body: string): void {
  res.status(status).type('html').send(page(title, body, s.config.appEnv === 'sandbox'));
}

/** Final: on to the merchant (303); without a redirect_url, our result page. */
function finished(s: Services, res: Response, row: CollectionRow): void {
  const target = redirectTarget(row);
  if (target) return void res.redirect(303, target);
  res.type('html').send(resultPage(s, row));
}

/**
 * Still PENDING after asking the processor: say so (and that the last attempt was declined, when it was,
 * in the processor's words), and offer to look again, to pay, or to leave.
 */
async function notYet(s: Services, res: Response, row: CollectionRow): Promise<void> {
  const shop = redirectTarget(row);
  const declined = await s.processorRequests.lastDecline(row.id);
  const attempt = declined
    ? `<p role="alert">Your last attempt was declined (the payment service said: ${escapeHtml(declined)}). Nothing was taken for it. You can go back
to the payment and try again, with another card or account if need be.</p>`
    : `<p>If you paid, the confirmation will follow shortly (a crypto payment once the network confirms it). If you left the payment
page before paying, you can go back to it.</p>`;
  send(
    s,
    res,
    200,
    'Payment not confirmed yet',
    `<h1>Your payment is not confirmed yet</h1>
<p class="amount">${escapeHtml(amountDue(row))}</p>
${attempt}
<p><a href="${escapeHtml(s.checkouts.returnUrl(row))}"><button class="primary" type="button">Check again</button></a></p>
<p><a href="${escapeHtml(paymentUrl(row))}"><button class="secondary" type="button">Go back to the payment</button></a></p>
${shop ? `<p><a href="${escapeHtml(shop)}"><button class="secondary" type="button">Return to the merchant</button></a></p>` : ''}
<p class="note">Reference ${escapeHtml(row.gateway_reference)}</p>`,
  );
}

/** After asking the processor: on to the merchant when decided, else the not-yet page. */
export async function confirmed(s: Services, res: Response, row: CollectionRow): Promise<void> {
  const now = row.status === 'PENDING' || row.status === 'EXPIRED' ? await s.checkouts.confirm(row) : row;
  if (isFinal(now.status)) return finished(s, res, now);
  await notYet(s, res, now);
}

/** What opening payment_url led to, as the customer sees it. */
export async function opened(s: Services, res: Response, row: CollectionRow, o: Opened): Promise<void> {
  switch (o.kind) {
    case 'redirect':
      return void res.redirect(303, o.url);
    case 'final':
      return finished(s, res, o.row);
    case 'confirm':
      return confirmed(s, res, row);
    case 'busy':
      res.set('Refresh', `2; url=${paymentUrl(row)}`);
      return send(s, res, 200, 'Preparing your payment', `<h1>Preparing your payment…</h1>
<p>This page reloads by itself in a moment.</p><p><a href="${escapeHtml(paymentUrl(row))}">Reload now</a></p>`);
    case 'unreachable':
      res.set('Retry-After', '5');
      return send(s, res, 503, 'Payment service not reachable', `<h1>We cannot reach the payment service right now</h1>
<p>Nothing has been charged. Please try again in a moment.</p>
<p><a href="${escapeHtml(paymentUrl(row))}"><button class="primary" type="button">Try again</button></a></p>
<p class="note">Reference ${escapeHtml(row.gateway_reference)}</p>`);
  }
}
