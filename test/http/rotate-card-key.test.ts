// Proves POST /v1/admin/card-keys/rotate: operator only; the new key is served at once and the old one keeps decrypting during its grace period.
import { encryptCard } from '../../scripts/encrypt-card';
import { GOOD_CARD, merchantToken } from '../cards/fixtures';
import { startTestService } from '../helpers/service';
import type { Client, TestService } from '../helpers/service';

let clock = new Date('2025-11-25T10:00:00Z');
let svc: TestService;
let merchant: Client;
beforeAll(async () => {
  svc = await startTestService({ now: () => clock });
  merchant = svc.merchant(await merchantToken(svc, 86400));
});
afterAll(async () => {
  await svc?.close();
});

const keyCount = async () => (await svc.services.db.one('SELECT count(*)::int AS n FROM card_keys')).n;

it('refuses anyone but the operator, changing nothing', async () => {
  const before = (await merchant.get('/v1/public-key')).body.data.public_key;
  for (const client of [svc.anon, merchant, svc.merchant('Bearer op_wrong_key_0123456789')]) {
    const res = await client.post('/v1/admin/card-keys/rotate');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  }
  expect(await keyCount()).toBe(1);
  expect((await merchant.get('/v1/public-key')).body.data.public_key).toBe(before);
});

it('rotates: the new key is served at once, the old one decrypts until previous_key_expires_at', async () => {
  const oldPem = (await merchant.get('/v1/public-key')).body.data.public_key;
  const [old] = await svc.services.db.any('SELECT key_id FROM card_keys');
  const madeForOld = encryptCard(oldPem, GOOD_CARD);

  clock = new Date('2025-11-25T10:15:00Z');
  const res = await svc.admin.post('/v1/admin/card-keys/rotate');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    code: 200,
    status: 'success',
    message: 'Card key rotated',
    data: {
      key_id: expect.stringMatching(/^ck_20251125T101500_/),
      created_at: '2025-11-25T10:15:00Z',
      previous_key_id: old.key_id,
      previous_key_expires_at: '2025-11-26T10:15:00Z',
    },
  });
  const current = await svc.services.db.one('SELECT key_id, public_pem FROM card_keys WHERE retired_at IS NULL');
  expect(current.key_id).toBe(res.body.data.key_id);

  const newPem = (await merchant.get('/v1/public-key')).body.data.public_key;
  expect(newPem).not.toBe(oldPem);
  expect(newPem).toBe(current.public_pem);
  expect((await svc.services.cards.decryptCard(encryptCard(newPem, GOOD_CARD))).card).toEqual(GOOD_CARD);
  expect((await svc.services.cards.decryptCard(madeForOld)).card).toEqual(GOOD_CARD);

  clock = new Date('2025-11-26T10:15:00Z');
  await expect(svc.services.cards.decryptCard(madeForOld)).rejects.toMatchObject({ code: 'CARD_DECRYPTION_FAILED' });
});

it('never shows a private key in the answer or the log', async () => {
  const res = await svc.admin.post('/v1/admin/card-keys/rotate');
  expect(res.status).toBe(200);
  expect(res.body.data.previous_key_expires_at).not.toBeNull();
  expect(res.text + svc.logs.join('\n')).not.toMatch(/PRIVATE KEY|BEGIN/);
});
