// The README's merchant flow on a fresh @hey-api/openapi-ts client (default options: types, SDK functions,
// fetch client). Type-checked by test/sdk/generators.test.ts in a scratch folder next to ./generated.
import { client } from './generated/client.gen';
import { createAccessToken, getCollection, getCurrentCardKey, getWalletBalance, listCollections, listWalletBalances, requestToPay } from './generated/sdk.gen';
import type { RequestToPay } from './generated/types.gen';
import { order, orders } from './orders';

export async function flow(baseUrl: string, apiKey: string, apiSecret: string, encrypt: (pem: string) => string): Promise<number> {
  client.setConfig({ baseUrl, headers: { accept: 'application/json' } });
  const token = await createAccessToken({ headers: { 'Secret-Key': apiSecret }, body: { api_key: apiKey }, throwOnError: true });
  client.setConfig({ baseUrl, headers: { accept: 'application/json', authorization: token.data.data.token } });

  const key = await getCurrentCardKey({ throwOnError: true });
  const pem = key.data.data.public_key;

  const bodies: RequestToPay[] = [...orders(encrypt(pem))];
  // @ts-expect-error a CARD request needs redirect_url, account_name and account_email
  const incomplete: RequestToPay = { ...order, payment_method: 'CARD', merchant_reference: 'ORD-0003-CARD' };
  const references: string[] = [];
  for (const body of [...bodies, incomplete]) {
    const accepted = await requestToPay({ body });
    if (accepted.error?.code === 'VALIDATION_ERROR') throw new Error(accepted.error.data.map((f) => `${f.field}: ${f.message}`).join('; '));
    if (accepted.error) throw new Error(accepted.error.message);
    references.push(accepted.data.data.gateway_reference);
  }

  const one = await getCollection({ path: { gateway_reference: references[0] }, throwOnError: true });
  const status: string = one.data.data.transaction_status;

  let seen = 0;
  let cursor: string | undefined;
  do {
    const page = await listCollections({ query: { status: 'COMPLETED', per_page: 100, cursor }, throwOnError: true });
    seen += page.data.data.length;
    cursor = page.data.paging.next_cursor ?? undefined;
  } while (cursor);

  const balances = await listWalletBalances({ throwOnError: true });
  const ugx = await getWalletBalance({ path: { currency: 'UGX' }, throwOnError: true });
  return seen + balances.data.data.length + ugx.data.data.available_balance + status.length;
}
