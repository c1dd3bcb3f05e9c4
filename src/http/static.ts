// The contract itself (bundled into one file per document) and its HTML reference.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type express from 'express';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DOCS_HTML = path.join(ROOT, 'dist', 'docs', 'index.html');

export function mountStatic(app: express.Express): void {
  const sendSpec = (file: string) => (_req: express.Request, res: express.Response) => {
    res.type('application/yaml').sendFile(path.join(ROOT, 'generated', file));
  };
  app.get('/openapi.yaml', sendSpec('openapi.yaml'));
  app.get('/admin/openapi.yaml', sendSpec('admin.yaml'));
  app.get('/docs/admin', (_req, res) => {
    const file = path.join(path.dirname(DOCS_HTML), 'admin.html');
    if (existsSync(file)) return res.sendFile(file);
    res.status(503).type('text/plain').send('The API reference is not built yet: run `npm run docs`.\n');
  });
  app.get('/docs', (_req, res) => {
    if (existsSync(DOCS_HTML)) return res.sendFile(DOCS_HTML);
    res.status(503).type('text/plain').send('The API reference is not built yet: run `npm run docs`.\n');
  });
}
