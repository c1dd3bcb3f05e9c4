// A payment link's page at /l/{link_id} (docs/contract/payment-links.md): the customer fills in the form,
// and its submission makes an ordinary collection (src/payment-links/attempts.ts) and sends them on to that
// collection's own hosted page; afterwards /l/{link_id}/done sends them to the merchant's redirect_url or
// shows the link's confirmation message. A link that takes no payment answers 410 and creates nothing. The
// QR codes of the link's URL are served beside it.
import express from 'express';
import type { Request, Response } from 'express';
import { linkUrl } from '../../api-records/payment-link';
import type { PaymentLinkRow } from '../../api-records/payment-link';
import { STATUS_MESSAGES } from '../../domain/collection';
import { AppError } from '../../errors';
import type { Unavailable } from '../../payment-links/index';
import { FailureThrottle } from '../../merchants/failure-throttle';
import type { Services } from '../../wiring';
import { csrfField, csrfValid } from './csrf';
import { escapeHtml, page } from './layout';
import { linkForm, readForm } from './link-form';
import { outagePage } from './outage';

const LINK_ID = /^pl_[A-Za-z0-9_-]{24}$/;
const COOKIE_PATH = '/l';

const GONE: Record<Unavailable['reason'], string> = {
  deactivated: 'This payment link is no longer available.',
  expired: 'This payment link has expired.',
  exhausted: 'This payment link is no longer available: it has taken all the payments it was made for.',
};

function gonePage(s: Services, res: Response, gone: Unavailable): void {
  const note = gone.reason === 'deactivated' && gone.message ? `<p>${escapeHtml(gone.message)}</p>` : '';
  res.status(410).type('html').send(page('Payment link unavailable', `<h1>${escapeHtml(GONE[gone.reason])}</h1>${note}<p>Nothing was charged.</p>`, s.config.appEnv === 'sandbox'));
}

function notFound(s: Services, res: Response): void {
  res.status(404).type('html').send(page('Payment link not found', '<h1>Payment link not found</h1><p>Check the link you were given.</p>', s.config.appEnv === 'sandbox'));
}

function hidden(s: Services, req: Request, res: Response, link: PaymentLinkRow): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(csrfField(req, res, s.config.jwtSecret, link.link_id, COOKIE_PATH))}">`;
}

export function mountLinkPages(app: express.Router, s: Services): void {
  const sandbox = s.config.appEnv === 'sandbox';
  const perLink = new FailureThrottle(() => s.db, s.now, s.config.paymentLinkAttemptsPerMinute);
  const perClient = new FailureThrottle(() => s.db, s.now, s.config.paymentLinkClientAttemptsPerMinute);
  const headers = (res: Response) =>
    res.set({ 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' https: http:; frame-ancestors 'none'" });
  const again = (req: Request) => `/l/${encodeURIComponent(String(req.params.link))}`;
  const load = async (req: Request) => (LINK_ID.test(String(req.params.link)) ? s.paymentLinks.forPage(String(req.params.link)) : null);

  app.get('/l/:link', async (req, res, next) => {
    try {
      headers(res);
      const link = await load(req);
      if (!link) return notFound(s, res);
      const gone = await s.linkAttempts.unavailable(link);
      if (gone) return gonePage(s, res, gone);
      res.type('html').send(page(link.title, linkForm(link, hidden(s, req, res, link)), sandbox));
    } catch (e) {
      outagePage(s, req, res, next, e, { again: again(req), underWay: false });
    }
  });

  app.post('/l/:link', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res, next) => {
    try {
      headers(res);
      const link = await load(req);
      if (!link) return notFound(s, res);
      const form = (req.body ?? {}) as Record<string, string>;
      if (!csrfValid(req, s.config.jwtSecret, link.link_id, form.csrf)) {
        return res.status(403).type('html').send(page('Session expired', '<h1>Please reload the payment page</h1><p>This form has expired.</p>', sandbox));
      }
      await perLink.count([`link:${link.link_id}`]);
      await perClient.count([`link-client:${req.ip ?? req.socket.remoteAddress ?? ''}`]);
      const read = readForm(link, form);
      if ('errors' in read) return res.status(400).type('html').send(page(link.title, linkForm(link, hidden(s, req, res, link), form, read.errors), sandbox));
      const started = await s.linkAttempts.start(link, read.input);
      if ('gone' in started) return gonePage(s, res, started.gone);
      const c = started.collection;
      res.redirect(303, c.payment_url ?? `/pay/${encodeURIComponent(c.gateway_reference)}?token=${encodeURIComponent(c.page_token ?? '')}`);
    } catch (e) {
      // the submission may have started a payment before the outage: the customer is told not to pay again
      if (!(e instanceof AppError)) return outagePage(s, req, res, next, e, { again: again(req), underWay: true });
      if (e.code === 'RATE_LIMITED') res.set(e.headers ?? {});
      const status = e.code === 'RATE_LIMITED' ? 429 : 400;
      const words = e.code === 'RATE_LIMITED' ? 'Too many attempts: wait a minute, then try again.' : 'This payment cannot be taken right now. Nothing was charged.';
      res.status(status).type('html').send(page('Payment not taken', `<h1>${words}</h1>`, sandbox));
    }
  });

  // Where the collection's hosted page sends the customer at the end: its query is not trusted, the
  // collection (one of this link's) is read instead.
  app.get('/l/:link/done', async (req, res, next) => {
    try {
      headers(res);
      const link = await load(req);
      if (!link) return notFound(s, res);
      const c = await s.linkAttempts.collectionOf(link, String(req.query.gateway_reference ?? ''));
      if (!c) return notFound(s, res);
      if (link.redirect_url) {
        const url = new URL(link.redirect_url);
        url.searchParams.set('gateway_reference', c.gateway_reference);
        url.searchParams.set('status', c.status);
        return res.redirect(303, url.toString());
      }
      const thanks = c.status === 'COMPLETED' ? `<p>${escapeHtml(link.confirmation_message ?? 'Thank you for your payment.')}</p>` : '';
      res.type('html').send(page(STATUS_MESSAGES[c.status], `<h1>${escapeHtml(STATUS_MESSAGES[c.status])}</h1>${thanks}<p>Reference ${escapeHtml(c.gateway_reference)}</p>`, sandbox));
    } catch (e) {
      outagePage(s, req, res, next, e, { again: req.originalUrl, underWay: true });
    }
  });

  const qr = (format: 'png' | 'svg') => async (req: Request, res: Response, next: express.NextFunction) => {
    try {
      const link = await load(req);
      if (!link) return notFound(s, res);
      const url = linkUrl(s.config.publicBaseUrl, link.link_id);
      res.set('Cache-Control', 'public, max-age=86400');
      // loaded on the first code asked for, not at every start
      const { default: QRCode } = await import('qrcode');
      if (format === 'svg') return res.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', margin: 2 }));
      res.type('image/png').send(await QRCode.toBuffer(url, { type: 'png', margin: 2, width: 512 }));
    } catch (e) {
      next(e);
    }
  };
  app.get('/l/:link/qr.png', qr('png'));
  app.get('/l/:link/qr.svg', qr('svg'));
}
