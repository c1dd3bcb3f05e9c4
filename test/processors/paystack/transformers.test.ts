// Proves the Paystack transformers: our payment -> Paystack's requests, and Paystack's recorded answers, statuses and signed webhooks -> ours.
import { createHmac } from 'node:crypto';
import {
  amountDecimals, chargeRequest, gatewayReferenceOf, initializeRequest, mapStatus, observe, PAYSTACK_STATUSES, paystackReference, problems,
  readCharge, readInitialize, readVerify, readWebhook, signature, signatureValid,
} from '../../../src/processors/paystack/transformers';
import type { PaystackPayment } from '../../../src/processors/paystack/transformers';
import * as f from './fixtures';

const payment: PaystackPayment = {
  reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F',
  amountMinor: 2_500_000n,
  currency: 'NGN',
  email: 'jane@shop.example',
  method: 'CARD',
  returnUrl: 'https://pay.example/pay/PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F/return?token=t0k',
};

const card = {
  full_name: 'Jane Doe', card_number: '4084084084084081', expiry_month: '12', expiry_year: '2030', cvv: '408',
  billing_address: '1 Marina', billing_city: 'Lagos', billing_zip: '', billing_state: 'Lagos', billing_country: 'NG',
};

describe('requests', () => {
  test('initialize: smallest unit as an integer, our reference and return URL, one channel per method', () => {
    expect(initializeRequest(payment)).toEqual({
      email: 'jane@shop.example', amount: 2500000, currency: 'NGN', reference: payment.reference, callback_url: payment.returnUrl,
      channels: ['card'], metadata: { cancel_action: payment.returnUrl },
    });
    expect(initializeRequest({ ...payment, method: 'BANK' }).channels).toEqual(['bank']);
  });

  test('charge: the card goes in the body, nothing else of it', () => {
    const body = chargeRequest(payment, card);
    expect(body.card).toEqual({ number: '4084084084084081', cvv: '408', expiry_month: '12', expiry_year: '2030' });
    expect(JSON.stringify(body)).not.toContain('Marina');
    expect(body.amount).toBe(2500000);
  });

  test('a lost first attempt gets a suffixed reference that still names the collection', () => {
    expect(paystackReference('PCABC', 1)).toBe('PCABC');
    expect(paystackReference('PCABC', 3)).toBe('PCABC.3');
    expect(gatewayReferenceOf('PCABC.3')).toBe('PCABC');
    expect(gatewayReferenceOf('PCABC')).toBe('PCABC');
  });

  test('currencies and the email Paystack needs', () => {
    expect(amountDecimals('NGN')).toBe(2);
    expect(amountDecimals('USD')).toBe(2);
    expect(amountDecimals('UGX')).toBeNull();
    expect(problems({ email: 'a@b.example' })).toEqual([]);
    expect(problems({ email: null })).toEqual([{ field: 'account_email', message: expect.any(String) }]);
  });
});

describe('answers', () => {
  test('initialize: created, duplicate, refused, unknown', () => {
    expect(readInitialize(200, f.initializeOk)).toEqual({ kind: 'created', authorizationUrl: f.initializeOk.data.authorization_url, accessCode: '0peioxfhpn6zz2n' });
    expect(readInitialize(400, f.duplicateReference)).toEqual({ kind: 'duplicate' });
    expect(readInitialize(401, f.invalidKey)).toEqual({ kind: 'refused', message: 'Invalid key' });
    expect(readInitialize(500, null).kind).toBe('unknown');
    expect(readInitialize(429, { status: false, message: 'Too many requests' }).kind).toBe('unknown');
    expect(readInitialize(200, { status: true, data: { authorization_url: 'javascript:alert(1)', access_code: 'x' } }).kind).toBe('unknown');
    expect(readInitialize(200, 'not json').kind).toBe('unknown');
  });

  test('verify: the transaction, a reference Paystack does not know, an unreadable answer', () => {
    expect(readVerify(200, f.verifySuccess)).toEqual({ kind: 'found', vendorStatus: 'success', amountMinor: 2_500_000n, currency: 'NGN', gatewayResponse: 'Successful' });
    expect(readVerify(404, { status: false, message: 'Entity not found' })).toEqual({ kind: 'not_found' });
    expect(readVerify(400, f.notFound)).toEqual({ kind: 'not_found' });
    expect(readVerify(401, f.invalidKey)).toEqual({ kind: 'refused', message: 'Invalid key' });
    expect(readVerify(502, '<html>').kind).toBe('unknown');
    expect(readVerify(200, { status: true, data: { status: 'success', amount: 1.5, currency: 'NGN' } }).kind).toBe('unknown');
  });

  test('every Paystack status has an explicit meaning; an unknown word is PENDING and flagged', () => {
    const table = Object.fromEntries(PAYSTACK_STATUSES.map((s) => [s, mapStatus(s).status]));
    expect(table).toEqual({
      success: 'COMPLETED', failed: 'FAILED', reversed: 'FAILED',
      abandoned: 'PENDING', ongoing: 'PENDING', pending: 'PENDING', processing: 'PENDING', queued: 'PENDING',
    });
    expect(PAYSTACK_STATUSES.every((s) => !mapStatus(s).unmapped)).toBe(true);
    expect(mapStatus('settled_somehow')).toEqual({ status: 'PENDING', message: expect.any(String), unmapped: true });
  });

  test('observe: status through the table, with the amount and currency Paystack says were paid', () => {
    const found = readVerify(200, f.verifyOtherAmount);
    if (found.kind !== 'found') throw new Error('expected found');
    expect(observe(found)).toEqual({ status: 'COMPLETED', vendorStatus: 'success', message: 'Payment completed', amountMinor: 2_000_000n, currency: 'NGN', unmapped: false });
    const failed = readVerify(200, f.verifyFailed);
    if (failed.kind !== 'found') throw new Error('expected found');
    expect(observe(failed)).toMatchObject({ status: 'FAILED', message: 'The payment was declined: Declined' });
    const abandoned = readVerify(200, f.verifyAbandoned);
    if (abandoned.kind !== 'found') throw new Error('expected found');
    expect(observe(abandoned).status).toBe('PENDING');
  });

  test('charge: the 3-D Secure URL, a final answer, a step we do not collect, unknown', () => {
    expect(readCharge(200, f.chargeOpenUrl)).toEqual({ kind: 'authenticate', url: f.chargeOpenUrl.data.url });
    expect(readCharge(200, f.chargeSuccess)).toMatchObject({ kind: 'reported', vendorStatus: 'success', amountMinor: 2_500_000n, currency: 'NGN' });
    expect(readCharge(200, f.chargeSendPin)).toEqual({ kind: 'other_step', step: 'send_pin' });
    expect(readCharge(200, f.chargePending).kind).toBe('unknown');
    expect(readCharge(400, f.chargeNoEmail)).toEqual({ kind: 'refused', message: 'Email address is required for association with card' });
    expect(readCharge(400, f.duplicateReference)).toEqual({ kind: 'duplicate' });
    expect(readCharge(503, null).kind).toBe('unknown');
  });
});

describe('webhooks', () => {
  const secret = 'sk_test_4f0c1e7b9a2d6c8e5b3a1f7d9c2e4b6a8d0f1c3e';
  const raw = Buffer.from(JSON.stringify(f.chargeSuccessEvent));

  test('x-paystack-signature is hex HMAC-SHA512 of the raw body with the secret key', () => {
    const expected = createHmac('sha512', secret).update(raw).digest('hex');
    expect(signature(raw, secret)).toBe(expected);
    expect(signatureValid(raw, expected, secret)).toBe(true);
    expect(signatureValid(raw, expected.toUpperCase(), secret)).toBe(true);
  });

  test('a forged, truncated, missing or re-serialised signature is refused', () => {
    const good = signature(raw, secret);
    expect(signatureValid(raw, signature(raw, 'sk_test_other'), secret)).toBe(false);
    expect(signatureValid(raw, good.slice(0, 64), secret)).toBe(false);
    expect(signatureValid(raw, undefined, secret)).toBe(false);
    expect(signatureValid(raw, 'zz' + good.slice(2), secret)).toBe(false);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString()), null, 1));
    expect(signatureValid(reserialised, good, secret)).toBe(false);
  });

  test('the event and reference are read; anything else is null', () => {
    expect(readWebhook(raw)).toEqual({ event: 'charge.success', reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F' });
    expect(readWebhook(Buffer.from('{"event":"charge.success"}'))).toBeNull();
    expect(readWebhook(Buffer.from('not json'))).toBeNull();
    expect(readWebhook(Buffer.from('[1,2]'))).toBeNull();
  });
});
