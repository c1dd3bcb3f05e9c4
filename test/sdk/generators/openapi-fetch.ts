// The README's merchant flow on a fresh client: openapi-typescript types (default options) + openapi-fetch.
// Type-checked by test/sdk/generators.test.ts in a scratch folder next to ./generated (no casts allowed).
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema';
import { order, orders } from './orders';

type RequestToPay = components['schemas']['RequestToPay'];
export async function flow(baseUrl: string, apiKey: string, apiSecret: string, encrypt: (pem: string) => string): Promise<number> {
  const anonymous = createClient<paths>({ baseUrl, headers: { accept: 'application/json' } });
  const token = await anonymous.POST('/v1/auth/token', { params: { header: { 'Secret-Key': apiSecret } }, body: { api_key: apiKey } });
  if (token.error) throw new Error(token.error.message);
  const api = createClient<paths>({ baseUrl, headers: { accept: 'application/json', authorization: token.data.data.token } });

  const key = await api.GET('/v1/card-keys/current');
  if (key.error) throw new Error(key.error.message);
  const pem = key.data.data.public_key;

  const bodies: RequestToPay[] = [...orders(encrypt(pem))];
  // @ts-expect-error a CARD request needs redirect_url, account_name and account_email
  const incomplete: RequestToPay = { ...order, payment_method: 'CARD', merchant_reference: 'ORD-0003-CARD' };
  const references: string[] = [];
  for (const body of [...bodies, incomplete]) {
    const accepted = await api.POST('/v1/collections/request-to-pay', { body });
    if (accepted.error?.code === 'VALIDATION_ERROR') throw new Error(accepted.error.data.map((f) => `${f.field}: ${f.message}`).join('; '));
    if (accepted.error) throw new Error(accepted.error.message);
    references.push(accepted.data.data.gateway_reference);
  }

  const one = await api.GET('/v1/collections/{gateway_reference}', { params: { path: { gateway_reference: references[0] } } });
  if (one.error) throw new Error(one.error.message);
  const status: string = one.data.data.transaction_status;

  let seen = 0;
  let cursor: string | undefined;
  do {
    const page = await api.GET('/v1/collections', { params: { query: { status: 'COMPLETED', per_page: 100, cursor } } });
    if (page.error) throw new Error(page.error.message);
    seen += page.data.data.length;
    cursor = page.data.paging.next_cursor ?? undefined;
  } while (cursor);

  const balances = await api.GET('/v1/data/wallets/balances');
  const ugx = await api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'UGX' } } });
  if (balances.error || ugx.error) throw new Error('balances');
  return seen + balances.data.data.length + ugx.data.data.available_balance + status.length;
}
