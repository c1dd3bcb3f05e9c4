// Proves GET /v1/public-key: a JWT is required; the current 2048-bit RSA key comes as PEM (application/x-pem-file, Key-Id header) unless Accept asks for JSON, which gets the envelope with key_id.
import { createPublicKey } from 'node:crypto';
import { encryptCard } from '../../scripts/encrypt-card';
import { GOOD_CARD, merchantToken } from '../cards/fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

let svc: TestService;
let merchant: Client;
beforeAll(async () => {
  svc = await startTestService();
  merchant = svc.merchant(await merchantToken(svc));
});
afterAll(async () => {
  await svc?.close();
});

it('refuses a caller without a valid access token with 401 in JSON', async () => {
  for (const authorization of [undefined, 'JWT not.a.token', 'Bearer ' + svc.config.operatorApiKey]) {
    const res = await svc.anon.get('/v1/public-key', { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.code).toBe('UNAUTHORIZED');
    expect(res.text).not.toContain('PUBLIC KEY');
  }
});

it.each(['application/x-pem-file', '*/*', 'text/html', ''])('answers PEM as application/x-pem-file with Accept %p', async (accept) => {
  const res = await merchant.get('/v1/public-key', { headers: { accept } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-pem-file(;|$)/);
  expect(res.headers.get('key-id')).toBe((await svc.services.cards.publicKey()).key_id);
  expect(res.headers.get('vary')).toMatch(/Accept/i);
  expect(res.text).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const key = createPublicKey(res.text);
  expect(key.asymmetricKeyType).toBe('rsa');
  expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
  expect(res.text).toBe(await svc.services.cards.publicKeyPem());
});

it.each(['application/json', 'application/json, */*;q=0.8'])('answers the JSON envelope with the key id to Accept %p', async (accept) => {
  const res = await merchant.get('/v1/public-key', { headers: { accept } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('vary')).toMatch(/Accept/i);
  expect(res.body).toMatchObject({ code: 200, status: 'success' });
  expect(res.body.data).toEqual(await svc.services.cards.publicKey());
  expect(res.body.data.public_key).toBe(await svc.services.cards.publicKeyPem());
  expect(res.body.data.key_id).toMatch(/^ck_/);
});

it('gives a key that the service decrypts cards for', async () => {
  const pem = (await merchant.get('/v1/public-key', { headers: { accept: 'application/x-pem-file' } })).text;
  expect((await svc.services.cards.decryptCard(encryptCard(pem, GOOD_CARD))).card).toEqual(GOOD_CARD);
});
