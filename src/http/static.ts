// The contract itself (bundled into one file per document) and its HTML reference, all made by
// `npm run generate`. The reference pages are server-rendered; Redoc's script (the very file its
// CDN serves, same integrity hash) comes from the build (copied there from @redocly/cli) or from
// @redocly/cli when installed, so /docs works offline.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type express from 'express';

export const ROOT = path.resolve(__dirname, '..', '..');
const GENERATED = path.join(ROOT, 'generated');

/** `npm run build` copies Redoc's script beside the build, so a production install (no @redocly/cli) serves it too. */
export const BUILT_REDOC = path.join(ROOT, 'dist', 'redoc.standalone.js');

export function redocBundle(): string | null {
  if (existsSync(BUILT_REDOC)) return BUILT_REDOC;
  try {
    const cli = path.dirname(require.resolve('@redocly/cli/package.json'));
    const file = path.join(cli, 'lib', 'chunks', 'redoc.standalone.js');
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

export function mountStatic(app: express.Router): void {
  const send = (file: string, type: string) => (_req: express.Request, res: express.Response) => {
    res.type(type).sendFile(path.join(GENERATED, file));
  };
  app.get('/openapi.yaml', send('openapi.yaml', 'application/yaml'));
  app.get('/admin/openapi.yaml', send('admin.yaml', 'application/yaml'));
  app.get('/docs', send('docs/index.html', 'html'));
  app.get('/docs/admin', send('docs/admin.html', 'html'));
  const redoc = redocBundle();
  app.get('/docs/redoc.standalone.js', (_req, res) => {
    if (!redoc) return res.status(404).type('text/plain').send('Redoc is not installed; the reference still reads without it.\n');
    res.type('application/javascript').sendFile(redoc, { maxAge: '1d' });
  });
}
