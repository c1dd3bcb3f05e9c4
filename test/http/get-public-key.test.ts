// Proves GET /v1/public-key: a JWT is required, and the answer is the current 2048-bit RSA key as PEM (application/x-pem-file) whatever Accept says.
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

it.each(['application/json', '*/*', 'text/html', ''])('answers PEM as application/x-pem-file with Accept %p', async (accept) => {
  const res = await merchant.get('/v1/public-key', { headers: { accept } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-pem-file(;|$)/);
  expect(res.text).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  const key = createPublicKey(res.text);
  expect(key.asymmetricKeyType).toBe('rsa');
  expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
  expect(res.text).toBe(await svc.services.cards.publicKeyPem());
});

it('gives a key that the service decrypts cards for', async () => {
  const pem = (await merchant.get('/v1/public-key')).text;
  expect((await svc.services.cards.decryptCard(encryptCard(pem, GOOD_CARD))).card).toEqual(GOOD_CARD);
});
