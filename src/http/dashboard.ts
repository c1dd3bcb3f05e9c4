// The dashboard's built files (scripts/build-dashboard.ts) at /dashboard: hashed assets cached for a
// year, and index.html for every other address under /dashboard so the app's own router answers it; and
// the site's icon at /favicon.ico.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type express from 'express';
import { ROOT } from './static';

const DIST = path.join(ROOT, 'dashboard', 'dist');
const ASSETS = path.join(DIST, 'assets');
const INDEX = path.join(DIST, 'index.html');
const YEAR_MS = 365 * 86_400_000;
/** The app loads only its own files and talks only to this origin; no page may frame it. */
const HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The site's icon (the dashboard's and the payment pages' tab): a browser asks /favicon.ico of every page, so it is never a 404. */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b5cad"/>' +
  '<path d="M10 25V7h7.5a5.5 5.5 0 0 1 0 11H14v7z" fill="#fff"/><path d="M14 11v3.5h3.3a1.75 1.75 0 0 0 0-3.5z" fill="#0b5cad"/></svg>';

export function mountDashboard(app: express.Router): void {
  // an SVG under the name browsers ask for; every current browser reads it by its Content-Type
  app.get('/favicon.ico', (_req, res) => {
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=86400' }).type('image/svg+xml').send(FAVICON);
  });
  app.get('/dashboard/assets/:file', (req, res) => {
    // `root` keeps the name inside the assets folder; names carry a content hash, so they never change.
    res.sendFile(req.params.file, { root: ASSETS, immutable: true, maxAge: YEAR_MS, dotfiles: 'deny' }, (err) => {
      if (err && !res.headersSent) res.status(404).type('text/plain').send('No such dashboard file: reload the dashboard to get the current one.\n');
    });
  });
  app.get(['/dashboard', '/dashboard/{*rest}'], (req, res) => {
    res.set(HEADERS);
    if (req.path.startsWith('/dashboard/assets/')) return res.status(404).type('text/plain').send('No such dashboard file.\n');
    if (!existsSync(INDEX)) {
      return res.status(503).type('text/plain').send('The dashboard is not built yet: run `npm run dashboard:build` (npm start does it), then reload.\n');
    }
    res.set('Cache-Control', 'no-cache').sendFile(INDEX);
  });
}
