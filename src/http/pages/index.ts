// Hosted payment pages (docs/contract/hosted-pages.md) at payment_url: /pay/{gateway_reference}?token=...
// Each payment method renders its page for a PENDING collection and answers the form posted from it;
// afterwards the browser goes to redirect_url with gateway_reference, merchant_reference and status.
// A collection whose processor has its own pages goes there instead (./processor-checkout.ts), and
// comes back to /pay/{gateway_reference}/return; nothing posted here can decide it.
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { isFinal } from '../../domain/collection';
import type { CollectionRow, PaymentMethod } from '../../domain/collection';
import type { Services } from '../../wiring';
import { bankPages } from './bank';
import { cardPages } from './card';
import { cryptoPages } from './crypto';
import { csrfField, csrfValid } from './csrf';
import { confirmed, opened } from './processor-checkout';
import { outagePage } from './outage';
import { escapeHtml, page } from './layout';
import { redirectTarget, resultPage } from './parts';
import type { MethodPages, PageRequest } from './parts';

const registry: Record<PaymentMethod, MethodPages | undefined> = { CARD: cardPages, BANK: bankPages, CRYPTO: cryptoPages, MOBILE_MONEY: undefined };

function notFound(res: Response, s: Services) {
  res.status(404).type('html').send(page('Payment not found', '<h1>Payment not found</h1><p>This payment link is not valid.</p>', s.config.appEnv === 'sandbox'));
}

/**
 * A failure on a payment page: our database outage is a page for the customer (./outage.ts), never the API's
 * JSON; anything else goes on to the service's error handler.
 */
function failed(s: Services, req: Request, res: Response, next: NextFunction, err: unknown): void {
  const token = String(req.query.token ?? req.body?.token ?? '');
  const again = `/pay/${encodeURIComponent(String(req.params.reference ?? ''))}${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  outagePage(s, req, res, next, err, { again, underWay: true });
}

async function load(s: Services, req: Request): Promise<CollectionRow | null> {
  const token = String(req.query.token ?? req.body?.token ?? '');
  const row = await s.db.oneOrNone<CollectionRow>('SELECT * FROM collections WHERE gateway_reference = $1', [req.params.reference]);
  if (!row || !row.page_token || !token || row.page_token !== token) return null;
  return row;
}

function pageRequest(s: Services, req: Request, res: Response, row: CollectionRow): PageRequest {
  const csrf = csrfField(req, res, s.config.jwtSecret, row.gateway_reference);
  const hidden = `<input type="hidden" name="token" value="${escapeHtml(row.page_token ?? '')}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  return { services: s, row, hidden, action: `/pay/${encodeURIComponent(row.gateway_reference)}` };
}

/** A PENDING collection past its expiry is shown as expired even before the worker gets to it. */
function expired(s: Services, row: CollectionRow): boolean {
  return row.status === 'PENDING' && row.expires_at.getTime() <= s.now().getTime();
}

export function mountPages(app: express.Router, s: Services): void {
  const sandbox = s.config.appEnv === 'sandbox';
  const headers = (res: Response) =>
    res.set({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'" });

  app.get('/pay/:reference', async (req, res, next) => {
    try {
      headers(res);
      const row = await load(s, req);
      if (!row) return notFound(res, s);
      if (expired(s, row)) return res.type('html').send(page('Payment expired', '<h1>This payment has expired</h1>', sandbox));
      const route = isFinal(row.status) ? null : await s.checkouts.route(row);
      if (route) return await opened(s, res, row, await s.checkouts.open(row, route));
      const pages = registry[row.payment_method];
      if (isFinal(row.status) || !pages) return res.type('html').send(resultPage(s, row));
      res.type('html').send(await pages.render(pageRequest(s, req, res, row)));
    } catch (e) {
      failed(s, req, res, next, e);
    }
  });

  // Where a processor sends the customer back: its query string (Paystack's reference) is not read;
  // the processor is asked instead.
  app.get('/pay/:reference/return', async (req, res, next) => {
    try {
      headers(res);
      const row = await load(s, req);
      if (!row || !(await s.checkouts.route(row))) return notFound(res, s);
      await confirmed(s, res, row);
    } catch (e) {
      failed(s, req, res, next, e);
    }
  });

  app.post('/pay/:reference', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res, next) => {
    try {
      headers(res);
      const row = await load(s, req);
      if (!row) return notFound(res, s);
      if (!csrfValid(req, s.config.jwtSecret, row.gateway_reference, req.body?.csrf)) {
        return res.status(403).type('html').send(page('Session expired', '<h1>Please reload the payment page</h1><p>This form has expired.</p>', sandbox));
      }
      const pages = registry[row.payment_method];
      if (expired(s, row)) return res.type('html').send(page('Payment expired', '<h1>This payment has expired</h1>', sandbox));
      // Only the processor decides a checkout on its own pages: a form posted here (the simulator's) changes nothing.
      if (isFinal(row.status) || !pages || (await s.checkouts.route(row))) return res.type('html').send(resultPage(s, row));
      const answer = await pages.answer(pageRequest(s, req, res, row), req.body as Record<string, string>);
      if ('html' in answer) return res.status(answer.status ?? 200).type('html').send(answer.html);
      const moved = (await s.collections.applyOutcome(row.id, answer.final, answer.message)) ?? (await s.collections.get(row.gateway_reference, null));
      // the sandbox's issuer disputes a payment of a disputing card as soon as it completes (src/sandbox/disputes.ts)
      if (sandbox && moved.status === 'COMPLETED' && moved.payment_method === 'CARD' && moved.mid_id !== null) await s.disputes.learn('sandbox', moved.mid_id, moved.gateway_reference);
      const target = redirectTarget(moved);
      if (target) return res.redirect(303, target);
      res.type('html').send(resultPage(s, moved));
    } catch (e) {
      failed(s, req, res, next, e);
    }
  });
}
