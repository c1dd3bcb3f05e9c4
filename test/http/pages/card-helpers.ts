// Shared by the hosted card page tests: card payments created through the merchant API, and a plain
// HTTP "browser" for the hosted pages that keeps the CSRF cookie and reads the form's hidden fields.
import { encryptCard } from '../../../scripts/encrypt-card';
import type { CardDetails } from '../../../src/domain/card';
import { ref } from '../../helpers/fixtures';
import type { MerchantSetup } from '../../helpers/fixtures';
import type { TestService } from '../../helpers/service';

export const SHOP = 'https://shop.example.org';
export const SUCCESS_PAN = '4000000000003006';
export const FAILURE_PAN = '4000000000003014';
/** Passes Luhn, but is no sandbox 3-D Secure test card. */
export const OTHER_PAN = '5555555555554444';

export function card(overrides: Partial<CardDetails> = {}): CardDetails {
  return {
    full_name: 'Amina Nakato',
    card_number: SUCCESS_PAN,
    expiry_month: '12',
    expiry_year: String(new Date().getUTCFullYear() + 3),
    cvv: '737',
    billing_address: '12 Kampala Road',
    billing_city: 'Kampala',
    billing_zip: '00256',
    billing_state: 'Central',
    billing_country: 'UG',
    ...overrides,
  };
}

export interface Created {
  gateway_reference: string;
  merchant_reference: string;
  payment_url: string;
}

/** A CARD collection; with `encrypted` it is a direct card payment. */
export async function createCard(m: MerchantSetup, encrypted?: string): Promise<Created> {
  const res = await m.client.post('/v1/collections/request-to-pay', {
    currency: 'UGX',
    amount: 25000,
    payment_method: 'CARD',
    redirect_url: `${SHOP}/return?order=7`,
    account_name: 'Amina Nakato',
    account_email: 'amina.nakato@example.org',
    merchant_reference: ref('CARD'),
    narration: 'Hosted card order',
    ...(encrypted ? { encrypted_card: encrypted } : {}),
  });
  if (res.status !== 200) throw new Error(`request-to-pay failed: ${res.status} ${res.text}`);
  return res.body.data as Created;
}

/** encrypted_card for these details, made with the key the service publishes. */
export async function encryptWithServiceKey(m: MerchantSetup, details: CardDetails): Promise<string> {
  const res = await m.client.get('/v1/public-key');
  if (res.status !== 200) throw new Error(`public-key failed: ${res.status}`);
  return encryptCard(res.body.data.public_key, details);
}

/** One customer's visit to payment_url over plain HTTP: the page's cookie and hidden fields are kept. */
export class Visit {
  cookie = '';
  csrf = '';
  token: string;
  readonly postUrl: string;

  constructor(readonly c: Created) {
    const url = new URL(c.payment_url);
    this.token = url.searchParams.get('token')!;
    this.postUrl = `${url.origin}/pay/${c.gateway_reference}`;
  }

  async open(): Promise<{ status: number; html: string }> {
    const res = await fetch(this.c.payment_url);
    const html = await res.text();
    this.cookie = (res.headers.get('set-cookie') ?? this.cookie).split(';')[0];
    this.csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? this.csrf;
    return { status: res.status, html };
  }

  /** Posts the form with the page's token and CSRF pair unless overridden. */
  async post(fields: Record<string, string>): Promise<{ status: number; html: string; location: string | null }> {
    const res = await fetch(this.postUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookie },
      body: new URLSearchParams({ token: this.token, csrf: this.csrf, ...fields }),
      redirect: 'manual',
    });
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  }
}

/** What the database holds for one collection, to compare before and after a refused request. */
export async function snapshot(svc: TestService, reference: string) {
  const db = svc.services.db;
  const row = await db.one(
    'SELECT id, status, message, card_masked, card_fingerprint, updated_at FROM collections WHERE gateway_reference = $1',
    [reference],
  );
  const counts = await db.one(
    `SELECT (SELECT count(*) FROM card_fingerprints)::int AS fingerprints,
            (SELECT count(*) FROM notifications WHERE collection_id = $1)::int AS notifications,
            (SELECT count(*) FROM journals WHERE collection_id = $1)::int AS journals,
            (SELECT count(*) FROM emails WHERE collection_id = $1)::int AS emails`,
    [row.id],
  );
  return { ...row, ...counts };
}
