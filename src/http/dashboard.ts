// The dashboard's built files (scripts/build-dashboard.ts) at /dashboard: hashed assets cached for a
// year, and index.html for every other address under /dashboard so the app's own router answers it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import { ROOT } from './static';

const DIST = path.join(ROOT, 'dashboard', 'dist');
const INDEX = path.join(DIST, 'index.html');
/** The app loads only its own files and talks only to this origin; no page may frame it. */
const HEADERS = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export function mountDashboard(app: express.Express): void {
  app.use('/dashboard/assets', express.static(path.join(DIST, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  app.get(['/dashboard', '/dashboard/{*rest}'], (req, res) => {
    res.set(HEADERS);
    if (req.path.startsWith('/dashboard/assets/')) return res.status(404).type('text/plain').send('No such dashboard file: reload the dashboard to get the current one.\n');
    if (!existsSync(INDEX)) {
      return res.status(503).type('text/plain').send('The dashboard is not built yet: run `npm run dashboard:build` (npm start does it), then reload.\n');
    }
    res.set('Cache-Control', 'no-cache').sendFile(INDEX);
  });
}
