// Proves the hosted card pages over plain HTTP: the entry form's fields, per-field errors that never echo the card number or CVV, the card kept only masked and fingerprinted, the challenge outcomes, and that a forged, mis-tokened or late form changes nothing.
import { maskPan } from '../../../src/domain/card';
import { setupMerchant } from '../../helpers/fixtures';
import type { MerchantSetup } from '../../helpers/fixtures';
import { startTestService } from '../../helpers/service';
import type { TestService } from '../../helpers/service';
import { FAILURE_PAN, OTHER_PAN, SHOP, SUCCESS_PAN, Visit, card, createCard, encryptWithServiceKey, snapshot } from './card-helpers';

let svc: TestService;
let m: MerchantSetup;
/** Moves the service's clock forward, to reach a collection's expiry without waiting for it. */
let skewMs = 0;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + skewMs) });
  m = await setupMerchant(svc);
});
afterAll(async () => {
  await svc?.close();
});

async function visit(encrypted?: string): Promise<Visit> {
  const v = new Visit(await createCard(m, encrypted));
  const opened = await v.open();
  expect(opened.status).toBe(200);
  return v;
}

const cardFields = (overrides: Parameters<typeof card>[0] = {}) => ({ action: 'pay', ...card(overrides) });

describe('the card entry page', () => {
  it('is a plain HTML form with card autocomplete hints, numeric keypads, Pay and Cancel', async () => {
    const v = new Visit(await createCard(m));
    const { html } = await v.open();
    for (const [name, hint] of [['full_name', 'cc-name'], ['card_number', 'cc-number'], ['expiry_month', 'cc-exp-month'], ['expiry_year', 'cc-exp-year'], ['cvv', 'cc-csc']]) {
      expect(html).toMatch(new RegExp(`<input id="${name}" name="${name}"[^>]* autocomplete="${hint}"`));
    }
    for (const name of ['card_number', 'expiry_month', 'expiry_year', 'cvv']) expect(html).toMatch(new RegExp(`name="${name}"[^>]*inputmode="numeric"`));
    for (const name of ['billing_address', 'billing_city', 'billing_zip', 'billing_state', 'billing_country']) expect(html).toContain(`name="${name}"`);
    expect(html).toContain('value="Amina Nakato"');
    expect(html).toMatch(/<button class="primary" name="action" value="pay">Pay<\/button>/);
    expect(html).toMatch(/<button class="secondary" name="action" value="cancel" formnovalidate>Cancel<\/button>/);
    expect(html).toContain('name="viewport"');
    expect(html).not.toContain('<script');
    expect(html).toContain('25,000 UGX');
    expect(html).toContain('4000 0000 0000 3006 passes');
  });

  it('shows an error per broken field, keeps the other fields, never echoes the card number or CVV, and records nothing', async () => {
    const v = await visit();
    const before = await snapshot(svc, v.c.gateway_reference);
    const badPan = '4000000000003007';
    const res = await v.post(
      cardFields({ card_number: '4000 0000 0000 3007', cvv: '9371', expiry_month: '13', billing_country: 'Uganda', full_name: 'Amina <b>Nakato</b>' }),
    );
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/id="card_number-error">Card number: is not a valid card number \(Luhn check failed\)/);
    expect(res.html).toMatch(/id="expiry_month-error">/);
    expect(res.html).toMatch(/id="billing_country-error">/);
    expect(res.html).not.toMatch(/id="(cvv|full_name|billing_city)-error"/);
    expect(res.html).not.toContain(badPan);
    expect(res.html).not.toContain('4000 0000 0000 3007');
    expect(res.html).not.toContain('9371');
    expect(res.html).toMatch(/name="card_number"[^>]*value=""/);
    expect(res.html).toMatch(/name="cvv"[^>]*value=""/);
    expect(res.html).toContain('value="Amina &lt;b&gt;Nakato&lt;/b&gt;"');
    expect(res.html).toContain('value="12 Kampala Road"');
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('refuses an expired card and a short CVV without recording anything', async () => {
    const v = await visit();
    const before = await snapshot(svc, v.c.gateway_reference);
    const res = await v.post(cardFields({ expiry_month: '01', expiry_year: '2020', cvv: '12' }));
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/id="expiry_year-error">Expiry year: the card has expired/);
    expect(res.html).toMatch(/id="cvv-error">/);
    expect(res.html).not.toContain(SUCCESS_PAN);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('keeps only the masked number and the fingerprint, then shows the challenge; the right card completes', async () => {
    const v = await visit();
    const res = await v.post(cardFields({ card_number: '4000-0000-0000-3006', expiry_month: '7', expiry_year: '31' }));
    expect(res.status).toBe(200);
    expect(res.html).toContain('Verify your payment');
    expect(res.html).toContain(`<dd id="card">${maskPan(SUCCESS_PAN)}</dd>`);
    expect(res.html).not.toContain(SUCCESS_PAN);
    const row = await snapshot(svc, v.c.gateway_reference);
    expect(row).toMatchObject({ status: 'PENDING', card_masked: '400000******3006', notifications: 0 });
    expect(row.card_fingerprint).toBe(svc.services.cards.fingerprint(SUCCESS_PAN));
    const seen = await svc.services.db.oneOrNone('SELECT first_seen_at FROM card_fingerprints WHERE fingerprint = $1', [row.card_fingerprint]);
    expect(seen).not.toBeNull();
    // Reloading the page now shows the challenge, not the entry form again.
    const again = await v.open();
    expect(again.html).toContain('Verify your payment');
    expect(again.html).not.toContain('name="card_number"');
    const done = await v.post({ action: 'authenticate' });
    expect(done.status).toBe(303);
    const back = new URL(done.location!);
    expect(back.origin + back.pathname).toBe(`${SHOP}/return`);
    expect(Object.fromEntries(back.searchParams)).toEqual({ order: '7', gateway_reference: v.c.gateway_reference, merchant_reference: v.c.merchant_reference, status: 'COMPLETED' });
    expect(await snapshot(svc, v.c.gateway_reference)).toMatchObject({ status: 'COMPLETED', message: 'Card payment authenticated with 3-D Secure', journals: 1, notifications: 1 });
  });

  it.each([
    [FAILURE_PAN, '3-D Secure authentication failed'],
    [OTHER_PAN, '3-D Secure authentication failed: the card is not a sandbox 3-D Secure test card'],
  ])('fails card %s at the challenge with "%s"', async (pan, message) => {
    const v = await visit();
    expect((await v.post(cardFields({ card_number: pan }))).status).toBe(200);
    const done = await v.post({ action: 'authenticate' });
    expect(done.status).toBe(303);
    expect(done.location).toContain('status=FAILED');
    expect(await snapshot(svc, v.c.gateway_reference)).toMatchObject({ status: 'FAILED', message, card_masked: maskPan(pan), journals: 0 });
  });

  it('keeps the first card when the entry form is posted again from another tab', async () => {
    const v = await visit();
    const second = new Visit(v.c);
    await second.open();
    await v.post(cardFields({ card_number: FAILURE_PAN }));
    const before = await snapshot(svc, v.c.gateway_reference);
    const res = await second.post(cardFields({ card_number: SUCCESS_PAN }));
    expect(res.status).toBe(200);
    expect(res.html).toContain(`<dd id="card">${maskPan(FAILURE_PAN)}</dd>`);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('answers "authenticate" before any card with the entry form (400) and changes nothing', async () => {
    const v = await visit();
    const before = await snapshot(svc, v.c.gateway_reference);
    const res = await v.post({ action: 'authenticate' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('name="card_number"');
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('cancels from the entry page without needing card details', async () => {
    const v = await visit();
    const res = await v.post({ action: 'cancel' });
    expect(res.status).toBe(303);
    expect(res.location).toContain('status=CANCELLED');
    expect(await snapshot(svc, v.c.gateway_reference)).toMatchObject({ status: 'CANCELLED', card_masked: null, card_fingerprint: null });
  });
});

describe('a direct card payment', () => {
  it('opens on the challenge for the encrypted card and cancels from there', async () => {
    const v = await visit(await encryptWithServiceKey(m, card({ cvv: '9371' })));
    const { html } = await v.open();
    expect(html).toContain(`<dd id="card">${maskPan(SUCCESS_PAN)}</dd>`);
    expect(html).not.toContain('name="card_number"');
    const res = await v.post({ action: 'cancel' });
    expect(res.location).toContain('status=CANCELLED');
    expect(await snapshot(svc, v.c.gateway_reference)).toMatchObject({ status: 'CANCELLED', card_masked: maskPan(SUCCESS_PAN) });
  });

  it('ignores a card entry form posted to it: the encrypted card stays', async () => {
    const v = await visit(await encryptWithServiceKey(m, card({ card_number: FAILURE_PAN })));
    const before = await snapshot(svc, v.c.gateway_reference);
    const res = await v.post(cardFields({ card_number: SUCCESS_PAN }));
    expect(res.html).toContain(`<dd id="card">${maskPan(FAILURE_PAN)}</dd>`);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });
});

describe('refused forms change nothing', () => {
  it.each([
    ['no CSRF field', { csrf: '' }],
    ['a forged CSRF field', { csrf: 'forged-value-forged-value-forged-value-x' }],
  ])('refuses the entry form with %s (403)', async (_what, override) => {
    const v = await visit();
    const before = await snapshot(svc, v.c.gateway_reference);
    const res = await v.post({ ...cardFields(), ...override });
    expect(res.status).toBe(403);
    expect(res.html).not.toContain(SUCCESS_PAN);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('refuses the challenge form without the CSRF cookie (403)', async () => {
    const v = await visit(await encryptWithServiceKey(m, card()));
    const before = await snapshot(svc, v.c.gateway_reference);
    v.cookie = '';
    const res = await v.post({ action: 'authenticate' });
    expect(res.status).toBe(403);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('answers a wrong page token with 404, for the page and the form', async () => {
    const v = await visit();
    const before = await snapshot(svc, v.c.gateway_reference);
    expect((await fetch(v.c.payment_url.replace(/token=[^&]*/, 'token=wrong'))).status).toBe(404);
    expect((await fetch(v.c.payment_url.replace(/\?.*$/, ''))).status).toBe(404);
    const forged = Object.assign(new Visit(v.c), { cookie: v.cookie, csrf: v.csrf });
    forged.token = 'wrong-token';
    const res = await forged.post(cardFields());
    expect(res.status).toBe(404);
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
  });

  it('changes nothing once the payment is final: entry, authenticate and cancel all show the result', async () => {
    const v = await visit();
    await v.post(cardFields({ card_number: FAILURE_PAN }));
    expect((await v.post({ action: 'authenticate' })).location).toContain('status=FAILED');
    const before = await snapshot(svc, v.c.gateway_reference);
    for (const fields of [{ action: 'authenticate' }, { action: 'cancel' }, cardFields({ card_number: SUCCESS_PAN })]) {
      const res = await v.post(fields);
      expect(res.status).toBe(200);
      expect(res.html).toContain('Payment failed');
      expect(res.html).not.toContain(SUCCESS_PAN);
    }
    expect(await snapshot(svc, v.c.gateway_reference)).toEqual(before);
    expect((await v.open()).html).toContain('Payment failed');
  });

  it('records no card once the payment has expired, and shows the page as expired', async () => {
    const v = await visit();
    const fingerprints = (await snapshot(svc, v.c.gateway_reference)).fingerprints;
    skewMs = (svc.config.pendingTtlSeconds + 5) * 1000;
    try {
      expect((await v.open()).html).toMatch(/expired/i);
      const res = await v.post(cardFields());
      expect(res.status).toBe(200);
      expect(res.html).not.toContain('Verify your payment');
      const after = await snapshot(svc, v.c.gateway_reference);
      expect(after).toMatchObject({ card_masked: null, card_fingerprint: null, fingerprints, journals: 0 });
      expect(['PENDING', 'EXPIRED']).toContain(after.status);
    } finally {
      skewMs = 0;
    }
  });
});
