// The README's merchant flow on a fresh oazapfts client (default options). Type-checked by
// test/sdk/generators.test.ts in a scratch folder next to ./generated.
import * as api from './generated/api';
import type { RequestToPay } from './generated/api';
import { order, orders } from './orders';

export async function flow(baseUrl: string, apiKey: string, apiSecret: string, encrypt: (pem: string) => string): Promise<number> {
  api.defaults.baseUrl = baseUrl;
  const token = await api.createAccessToken({ api_key: apiKey }, { secretKey: apiSecret });
  if (token.status !== 200) throw new Error(token.data.message);
  api.defaults.headers = { Authorization: token.data.data.token };

  const key = await api.getCurrentCardKey();
  if (key.status !== 200) throw new Error(key.data.message);
  const pem = key.data.data.public_key;

  const bodies: RequestToPay[] = [...orders(encrypt(pem))];
  // @ts-expect-error a CARD request needs redirect_url, account_name and account_email
  const incomplete: RequestToPay = { ...order, payment_method: 'CARD', merchant_reference: 'ORD-0003-CARD' };
  const references: string[] = [];
  for (const body of [...bodies, incomplete]) {
    const accepted = await api.requestToPay(body);
    if (accepted.status === 400 && accepted.data.code === 'VALIDATION_ERROR') throw new Error(accepted.data.data.map((f) => `${f.field}: ${f.message}`).join('; '));
    if (accepted.status !== 200) throw new Error(accepted.data.message);
    references.push(accepted.data.data.gateway_reference);
  }

  const one = await api.getCollection(references[0]);
  if (one.status !== 200) throw new Error(one.data.message);
  const status: string = one.data.data.transaction_status;

  let seen = 0;
  let cursor: string | undefined;
  do {
    const page = await api.listCollections({ status: 'COMPLETED', perPage: 100, cursor });
    if (page.status !== 200) throw new Error(page.data.message);
    seen += page.data.data.length;
    cursor = page.data.paging.next_cursor ?? undefined;
  } while (cursor);

  const balances = await api.listWalletBalances();
  const ugx = await api.getWalletBalance('UGX');
  if (balances.status !== 200 || ugx.status !== 200) throw new Error('balances');
  return seen + balances.data.data.length + ugx.data.data.available_balance + status.length;
}
