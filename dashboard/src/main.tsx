import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api';
import { App } from './App';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    // A refusal will not change on retry; only an unreachable service is worth asking again.
    queries: { retry: (count, error) => error instanceof ApiError && error.code === 'UNREACHABLE' && count < 2, refetchOnWindowFocus: false },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <QueryClientProvider client={queries}>
    <App />
  </QueryClientProvider>,
);
