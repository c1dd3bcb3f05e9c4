// Proves the cache of verified access tokens changes no answer: a token accepted before is refused once it expires on the service clock, once its API token is regenerated or deleted, and a tampered copy of a known token is refused.
import { accessToken, createBusiness, issueToken } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

let nowMs = Date.parse('2026-05-04T08:00:00.000Z');
let svc: TestService;
// a loaded machine can take over a minute to open an embedded database
beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(nowMs) });
}, 180_000);
afterAll(() => svc?.close());

const balances = (token: string) => svc.merchant(token).get('/v1/data/wallets/balances');

async function tokenOfNewMerchant(expiresIn = 60) {
  const b = await createBusiness(svc, { default_currency: 'UGX' });
  const t = await issueToken(svc, b.id);
  return { id: t.id, token: await accessToken(svc, t.api_key, t.api_secret, expiresIn) };
}

it('refuses a token used before once the service clock passes its expiry', async () => {
  const { token } = await tokenOfNewMerchant(60);
  expect((await balances(token)).status).toBe(200);
  nowMs += 59_000;
  expect((await balances(token)).status).toBe(200);
  nowMs += 1_000;
  expect((await balances(token)).status).toBe(401);
  nowMs -= 30_000;
  // once forgotten it is checked in full again, and is valid again at that earlier time
  expect((await balances(token)).status).toBe(200);
  nowMs += 30_000;
});

it('refuses a token used before once its API token is regenerated, or deleted', async () => {
  const first = await tokenOfNewMerchant(600);
  expect((await balances(first.token)).status).toBe(200);
  expect((await svc.admin.post(`/v1/admin/api-tokens/${first.id}/regenerate`)).status).toBe(200);
  expect((await balances(first.token)).status).toBe(401);

  const second = await tokenOfNewMerchant(600);
  expect((await balances(second.token)).status).toBe(200);
  expect((await svc.admin.delete(`/v1/admin/api-tokens/${second.id}`)).status).toBe(200);
  expect((await balances(second.token)).status).toBe(401);
});

it('refuses a tampered copy of a token it has verified', async () => {
  const { token } = await tokenOfNewMerchant(600);
  expect((await balances(token)).status).toBe(200);
  const [head, body, sig] = token.replace(/^JWT /, '').split('.');
  const flipped = sig.slice(0, -2) + (sig.at(-2) === 'A' ? 'B' : 'A') + sig.at(-1);
  expect((await balances(`JWT ${head}.${body}.${flipped}`)).status).toBe(401);
  expect((await balances(token)).status).toBe(200);
});
