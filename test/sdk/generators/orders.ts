// The five request-to-pay bodies of the merchant flow, one per form, shared by the flows of every generator
// (plain literals: each flow assigns them to its generator's RequestToPay type, which checks them).
const redirect_url = 'https://shop.example.org/done';
export const order = { currency: 'UGX', amount: 50000, narration: 'Order 0001 books' } as const;
const customer = { redirect_url, account_name: 'Amina Nakato', account_email: 'amina@example.org' } as const;

export function orders(encrypted_card: string) {
  return [
    { ...order, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: 'ORD-0001-MM' },
    { ...order, payment_method: 'CARD', merchant_reference: 'ORD-0001-CARD', ...customer },
    { ...order, payment_method: 'CARD', merchant_reference: 'ORD-0002-CARD', ...customer, encrypted_card },
    { ...order, payment_method: 'BANK', account_number: '0123456789', merchant_reference: 'ORD-0001-BANK', redirect_url },
    { ...order, payment_method: 'CRYPTO', account_number: 'bc1qcustomerwallet', merchant_reference: 'ORD-0001-BTC', redirect_url },
  ] as const;
}
