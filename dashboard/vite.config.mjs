// Builds the dashboard into dashboard/dist, served by the service at /dashboard (src/http/dashboard.ts).
// `npm run dashboard:dev` serves it with hot reload and proxies /v1 to DASHBOARD_API: by default the Prism
// mock of openapi/admin.yaml (`npm run mock:admin`, :4011), given a session cookie so that its security
// check passes; or a running service (http://localhost:8080), where you sign in as usual.
import { defineConfig } from 'vite';

const api = process.env.DASHBOARD_API;
const proxy = api ? { target: api, changeOrigin: true } : { target: 'http://localhost:4011', changeOrigin: true, headers: { cookie: 'pc_session=prism-mock' } };

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Query marks its hooks "use client" for server components; a plain SPA has none.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    proxy: { '/v1': proxy },
  },
  logLevel: 'warn',
});
