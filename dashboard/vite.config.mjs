// Builds the dashboard into dashboard/dist, served by the service at /dashboard (src/http/dashboard.ts).
// `npm run dashboard:dev` serves it with hot reload and proxies the API: the merchant API to DASHBOARD_API
// (default: the Prism mock of `npm run mock` on :4010), the operator API to DASHBOARD_ADMIN_API (default:
// a Prism mock of openapi/admin.yaml on :4011). Point both at a running service (http://localhost:8080)
// to use real data.
import { defineConfig } from 'vite';

const api = process.env.DASHBOARD_API ?? 'http://localhost:4010';
const adminApi = process.env.DASHBOARD_ADMIN_API ?? 'http://localhost:4011';

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
    proxy: {
      '/v1/admin': { target: adminApi, changeOrigin: true },
      '/v1': { target: api, changeOrigin: true },
    },
  },
  logLevel: 'warn',
});
