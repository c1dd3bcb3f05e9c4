// The merchant flow of the SDK's README, run through the SDK against whatever answers at its base URL
// (the service, Prism's proxy in front of it, or Prism's mock), and a transport that records every
// exchange so that a test can check each response on its own terms.
import { iterate, unwrap } from '../../sdk/src';
import type { components, PayCollect } from '../../sdk/src';
import { encryptCard } from '../../sdk/src';
import { GOOD_CARD } from '../cards/fixtures';

type Schemas = components['schemas'];
export type Method = Schemas['PaymentMethod'];
export type CollectionRecord = Schemas['CollectionRecord'];

export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string;
  headers: Headers;
  text: string;
}

/** A fetch for the SDK that keeps every request and answer (the answer is passed on untouched). */
export function recordingFetch(log: Exchange[]) {
  return async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    const text = await response.clone().text();
    log.push({ method: request.method, url: request.url, status: response.status, contentType: response.headers.get('content-type') ?? '', headers: response.headers, text });
    return response;
  };
}

export interface FlowOptions {
  /** a merchant_reference not used before */
  reference: () => string;
  /** polls the mobile-money collection until it is final (the service); the mock never moves */
  settle?: (read: () => Promise<CollectionRecord>) => Promise<CollectionRecord>;
  perPage: number;
}

export interface FlowResult {
  accepted: Record<'MOBILE_MONEY' | 'CARD_HOSTED' | 'CARD_DIRECT' | 'BANK' | 'CRYPTO', CollectionRecord>;
  read: CollectionRecord;
  listed: CollectionRecord[];
  balances: Schemas['WalletBalance'][];
  balance: Schemas['WalletBalance'];
}

const redirect_url = 'https://shop.example.org/done';
const customer = { account_name: 'Amina Nakato', account_email: 'amina@example.org', redirect_url };

export async function merchantFlow(pay: PayCollect, o: FlowOptions): Promise<FlowResult> {
  const order = { currency: 'UGX', amount: 50000, narration: 'Order for test goods' };
  const rtp = async (body: Schemas['RequestToPay']) => (await unwrap(pay.api.POST('/v1/collections/request-to-pay', { body }))).data;
  const key = await pay.publicKey();
  const accepted = {
    MOBILE_MONEY: await rtp({ ...order, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: o.reference() }),
    CARD_HOSTED: await rtp({ ...order, payment_method: 'CARD', ...customer, merchant_reference: o.reference() }),
    CARD_DIRECT: await rtp({ ...order, payment_method: 'CARD', ...customer, merchant_reference: o.reference(), encrypted_card: encryptCard(key.public_key, GOOD_CARD) }),
    BANK: await rtp({ ...order, amount: 19.99, payment_method: 'BANK', account_number: '0123456789', redirect_url, merchant_reference: o.reference() }),
    CRYPTO: await rtp({ ...order, amount: 1.15, payment_method: 'CRYPTO', account_number: 'bc1qcustomerwallet', redirect_url, merchant_reference: o.reference() }),
  };
  const gateway_reference = accepted.MOBILE_MONEY.gateway_reference;
  const readOnce = async () => (await unwrap(pay.api.GET('/v1/collections/{gateway_reference}', { params: { path: { gateway_reference } } }))).data;
  const read = o.settle ? await o.settle(readOnce) : await readOnce();
  const listed: CollectionRecord[] = [];
  const pages = (cursor: string | undefined) => unwrap(pay.api.GET('/v1/collections', { params: { query: { per_page: o.perPage, cursor } } }));
  for await (const record of iterate(pages)) listed.push(record);
  const balances = (await unwrap(pay.api.GET('/v1/data/wallets/balances'))).data;
  const balance = (await unwrap(pay.api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'UGX' } } }))).data;
  return { accepted, read, listed, balances, balance };
}
