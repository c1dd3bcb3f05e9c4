// Proves the BTCPay transformers: our payment -> an invoice request, recorded invoices and signed webhooks -> ours, and when a crypto payment counts (Settled), with under- and overpayment.
import { createHmac } from 'node:crypto';
import {
  ADDITIONAL_STATUSES, createInvoiceRequest, decimalToMinor, INVOICE_STATUSES, mapStatus, observe, readInvoice, readInvoiceList, readWebhook,
  signature, signatureValid,
} from '../../../src/processors/btcpay/transformers';
import * as f from './fixtures';

test('an invoice priced in our currency, tagged with our reference, returning to us, expiring with the collection', () => {
  expect(createInvoiceRequest({ gatewayReference: 'PCREF', amountMinor: 2_500_050n, currency: 'UGX', returnUrl: 'https://pay.example/r', expirationMinutes: 29 })).toEqual({
    amount: '25000.50',
    currency: 'UGX',
    metadata: { orderId: 'PCREF' },
    checkout: { redirectURL: 'https://pay.example/r', redirectAutomatically: true, expirationMinutes: 29, paymentTolerance: 0 },
  });
  expect(createInvoiceRequest({ gatewayReference: 'PCREF', amountMinor: 1n, currency: 'USD', returnUrl: 'https://x.example', expirationMinutes: 0 }).checkout.expirationMinutes).toBe(1);
});

test('decimal amounts read exactly; anything finer than a cent is not read', () => {
  expect(decimalToMinor('25000.00')).toBe(2_500_000n);
  expect(decimalToMinor('12.5')).toBe(1250n);
  expect(decimalToMinor('12.500000')).toBe(1250n);
  expect(decimalToMinor('7')).toBe(700n);
  expect(decimalToMinor('12.345')).toBeNull();
  expect(decimalToMinor('-1')).toBeNull();
  expect(decimalToMinor(12.5)).toBeNull();
  expect(decimalToMinor('1e5')).toBeNull();
});

test('invoice answers: the invoice, unknown invoice, refused request, unreadable answer', () => {
  expect(readInvoice(200, f.invoice('New', 'None'))).toEqual({
    kind: 'invoice', id: 'BkQ8Hq7fRAZ3rTt9WUn2xJ', checkoutLink: 'https://btcpay.shop.example/i/BkQ8Hq7fRAZ3rTt9WUn2xJ', status: 'New', additionalStatus: 'None',
    amountMinor: 2_500_000n, currency: 'UGX', orderId: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F',
  });
  expect(readInvoice(404, { code: 'invoice-not-found', message: 'x' })).toEqual({ kind: 'not_found' });
  expect(readInvoice(401, f.unauthenticated)).toEqual({ kind: 'refused', message: f.unauthenticated.message });
  expect(readInvoice(400, f.badAmount)).toEqual({ kind: 'refused', message: 'amount: Amount should be greater than 0' });
  expect(readInvoice(403, undefined)).toEqual({ kind: 'refused', message: 'refused' });
  expect(readInvoice(500, null).kind).toBe('unknown');
  expect(readInvoice(200, { ...f.invoice('New', 'None'), checkoutLink: 'javascript:x' }).kind).toBe('unknown');
  expect(readInvoiceList(200, [f.invoice('New', 'None')])).toMatchObject({ kind: 'list', invoices: [{ id: 'BkQ8Hq7fRAZ3rTt9WUn2xJ' }] });
  expect(readInvoiceList(200, [{ id: 'x' }]).kind).toBe('unknown');
  expect(readInvoiceList(200, {}).kind).toBe('unknown');
});

test('every (status, additional status) pair has an explicit meaning: only Settled completes', () => {
  const completes = INVOICE_STATUSES.flatMap((s) => ADDITIONAL_STATUSES.map((a) => [`${s}/${a}`, mapStatus(s, a)] as const));
  expect(completes.every(([, m]) => !m.unmapped)).toBe(true);
  expect(completes.filter(([, m]) => m.status === 'COMPLETED').map(([k]) => k.split('/')[0])).toEqual(Array(6).fill('Settled'));
  expect(mapStatus('New', 'None').status).toBe('PENDING');
  expect(mapStatus('New', 'PaidPartial').status).toBe('PENDING');
  expect(mapStatus('Processing', 'PaidOver').status).toBe('PENDING');
  expect(mapStatus('Expired', 'None').status).toBe('PENDING');
  expect(mapStatus('Expired', 'PaidLate').status).toBe('PENDING');
  expect(mapStatus('Expired', 'PaidPartial')).toMatchObject({ status: 'FAILED', message: expect.stringContaining('Underpaid') });
  expect(mapStatus('Invalid', 'None').status).toBe('FAILED');
  expect(mapStatus('Invalid', 'Marked')).toMatchObject({ status: 'FAILED', message: 'The invoice was marked invalid' });
  expect(mapStatus('Settled', 'PaidOver')).toMatchObject({ status: 'COMPLETED', message: expect.stringContaining('not credited') });
  expect(mapStatus('Refunded', 'None')).toMatchObject({ status: 'PENDING', unmapped: true });
  expect(mapStatus('Settled', 'Bogus')).toMatchObject({ status: 'PENDING', unmapped: true });
});

test('observe: an overpaid invoice completes for the invoiced amount, never the amount paid', () => {
  const answer = readInvoice(200, { ...f.invoice('Settled', 'PaidOver'), paidAmount: '37500.00' });
  if (answer.kind !== 'invoice') throw new Error('expected invoice');
  expect(observe(answer)).toEqual({
    status: 'COMPLETED', vendorStatus: 'Settled/PaidOver', message: expect.any(String), amountMinor: 2_500_000n, currency: 'UGX', unmapped: false,
  });
});

describe('webhooks', () => {
  const secret = 'Wq3vB8kD1sF6hJ2mN9pR4t';
  const raw = Buffer.from(f.settledEvent);

  test('BTCPay-Sig is sha256= hex HMAC-SHA256 of the raw (indented) body with the UTF-8 secret', () => {
    const expected = 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');
    expect(signature(raw, secret)).toBe(expected);
    expect(signatureValid(raw, expected, secret)).toBe(true);
  });

  test('a forged, bare, truncated, missing or re-serialised signature is refused', () => {
    const good = signature(raw, secret);
    expect(signatureValid(raw, signature(raw, 'other'), secret)).toBe(false);
    expect(signatureValid(raw, good.slice('sha256='.length), secret)).toBe(false);
    expect(signatureValid(raw, good.slice(0, -2), secret)).toBe(false);
    expect(signatureValid(raw, undefined, secret)).toBe(false);
    expect(signatureValid(Buffer.from(JSON.stringify(JSON.parse(f.settledEvent))), good, secret)).toBe(false);
  });

  test('type, store, invoice and our orderId are read; anything else is null', () => {
    expect(readWebhook(raw)).toEqual({ type: 'InvoiceSettled', storeId: '9CiNzKoANXxmk5ayZngSXrHTiVvvgCrwrpFQd4m2K776', invoiceId: 'BkQ8Hq7fRAZ3rTt9WUn2xJ', orderId: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F' });
    expect(readWebhook(Buffer.from('{"type":"InvoiceSettled"}'))).toBeNull();
    expect(readWebhook(Buffer.from('<xml/>'))).toBeNull();
  });
});
