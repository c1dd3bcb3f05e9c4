// Proves GET /v1/card-keys/current: a JWT is required; it answers the JSON envelope with the current key and its id whatever Accept says (the operation generated clients use), the same key GET /v1/public-key gives as PEM, and the new key after a rotation.
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

it('refuses a caller without a valid access token with 401', async () => {
  for (const authorization of [undefined, 'JWT not.a.token', 'Bearer ' + svc.config.operatorApiKey]) {
    const res = await svc.anon.get('/v1/card-keys/current', { headers: authorization ? { authorization } : {} });
    expect([res.status, res.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(res.text).not.toContain('PUBLIC KEY');
  }
});

it.each(['application/json', 'application/x-pem-file', '*/*', 'text/html', ''])('answers the JSON envelope to Accept %p', async (accept) => {
  const res = await merchant.get('/v1/card-keys/current', { headers: { accept } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ code: 200, status: 'success', message: 'Card key retrieved' });
  expect(res.body.data).toEqual(await svc.services.cards.publicKey());
});

it('gives the key GET /v1/public-key gives as PEM, one the service decrypts cards for, and the new one after a rotation', async () => {
  const json = (await merchant.get('/v1/card-keys/current')).body.data;
  const pem = await merchant.get('/v1/public-key', { headers: { accept: 'application/x-pem-file' } });
  expect([json.public_key, json.key_id]).toEqual([pem.text, pem.headers.get('key-id')]);
  expect((await svc.services.cards.decryptCard(encryptCard(json.public_key, GOOD_CARD))).card).toEqual(GOOD_CARD);

  const rotated = await svc.admin.post('/v1/admin/card-keys/rotate');
  expect(rotated.status).toBe(200);
  const next = (await merchant.get('/v1/card-keys/current')).body.data;
  expect(next.key_id).toBe(rotated.body.data.key_id);
  expect(next.key_id).not.toBe(json.key_id);
  expect(next.public_key).not.toBe(json.public_key);
});
