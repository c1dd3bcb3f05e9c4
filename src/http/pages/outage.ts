// Our database outage on a page a customer has open (a hosted payment page, a payment link's page): a page
// in words (503, Retry-After), never the API's JSON. It says what happened and what to do: where a payment
// may be under way at the processor, not to pay again.
import type { NextFunction, Request, Response } from 'express';
import { isDatabaseUnavailable } from '../../db';
import type { Services } from '../../wiring';
import { escapeHtml, page } from './layout';

/** How long a customer is asked to wait before opening the page again when our records cannot be reached. */
const OUTAGE_RETRY_SECONDS = 60;

/**
 * The outage page when `err` is our database's outage; anything else goes on to `next`. `again` is the page
 * to open again; `underWay` says a payment may have started (then: do not pay again).
 */
export function outagePage(s: Services, req: Request, res: Response, next: NextFunction, err: unknown, at: { again: string; underWay: boolean }): void {
  if (!isDatabaseUnavailable(err)) return next(err);
  s.log.warn('database unavailable on a customer page', { path: req.path, err });
  const state = at.underWay ? '<p>Your payment may still go through: <strong>do not pay again</strong>.</p>' : '<p>Nothing was charged.</p>';
  res
    .status(503)
    .set('Retry-After', String(OUTAGE_RETRY_SECONDS))
    .type('html')
    .send(
      page(
        'Payment page unavailable',
        `<h1>We could not reach our records</h1>
${state}
<p>Try this page again in a minute${at.underWay ? '; it will show where your payment stands' : ''}.</p>
<p><a href="${escapeHtml(at.again)}"><button class="primary" type="button">Try this page again</button></a></p>`,
        s.config.appEnv === 'sandbox',
      ),
    );
}
