// Proves the sandbox's card disputes over real HTTP: a payment completed on the card page with the
// designated card 4000000000000259 is disputed at once, with its hold, through the same disputes wing and
// ledger journals as a live processor's; moving the business's sandbox clock past the deadline accepts it
// and debits it exactly once (moving again changes nothing); a payment of 4000000000002685 is won at the
// deadline and its hold released; a dispute accepted in part before the deadline is debited only that part;
// an ordinary test card opens no dispute; another business's clock is its own; bad input moves nothing; evidence
// on a sandbox dispute (open, with a file too large, or closed) is refused with the reason and changes nothing;
// live has no clock (test/http/simulate-collection.test.ts).
import { ledgerDrift } from '../../src/ledger/ledger';
import { setupMerchant } from '../helpers/fixtures';
import type { MerchantSetup } from '../helpers/fixtures';
import { expectOk } from '../helpers/merchants';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { Visit, card, createCard } from '../http/pages/card-helpers';

const LOST = '4000000000000259';
const WON = '4000000000002685';
/** Past any deadline: 16 running hours plus a whole weekend's pause, and more. */
const PAST = 100;

let svc: TestService;
let shop: MerchantSetup;

beforeAll(async () => {
  svc = await startTestService();
  shop = await setupMerchant(svc, { name: 'Kampala Cards' });
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const db = () => svc.services.db;

/** A UGX 25,000 card payment by `pan` on the hosted card page, through the 3-D Secure challenge. */
async function paidWith(m: MerchantSetup, pan: string): Promise<string> {
  const v = new Visit(await createCard(m));
  await v.open();
  await v.post({ action: 'pay', ...card({ card_number: pan }) });
  const done = await v.post({ action: 'authenticate' });
  expect(done.status).toBeLessThan(400);
  return v.c.gateway_reference;
}

const disputeOf = (collection: string) =>
  db().oneOrNone<{ gateway_reference: string; status: string; held_minor: bigint; debited_minor: bigint | null; resolution: string | null; processor_dispute_id: string }>(
    'SELECT d.* FROM disputes d JOIN collections c ON c.id = d.collection_id WHERE c.gateway_reference = $1',
    [collection],
  );
const journals = (collection: string) =>
  db().any<{ kind: string }>('SELECT j.kind FROM journals j JOIN disputes d ON d.id = j.dispute_id JOIN collections c ON c.id = d.collection_id WHERE c.gateway_reference = $1 ORDER BY j.id', [collection]);
const available = async (m: MerchantSetup) => expectOk(await m.client.get('/v1/data/wallets/UGX/balance')).available_balance as number;
const advance = (m: MerchantSetup, hours: unknown) => m.client.post('/v1/sandbox/clock', { advance_hours: hours });

it('lists the disputing cards among the scenarios', async () => {
  const scenarios = expectOk(await shop.client.get('/v1/sandbox/scenarios')) as { name: string; value: string }[];
  expect(scenarios.filter((s) => s.name.startsWith('CARD_DISPUTE')).map((s) => [s.name, s.value])).toEqual([['CARD_DISPUTE_LOST', LOST], ['CARD_DISPUTE_WON', WON]]);
});

it('a disputing card opens a dispute with its hold; past the deadline the lost one is accepted and debited once, the won one released', async () => {
  const before = await available(shop);
  const lost = await paidWith(shop, LOST);
  const won = await paidWith(shop, WON);
  const plain = await paidWith(shop, '4000000000003006');
  expect(await disputeOf(plain)).toBeNull();
  const opened = await disputeOf(lost);
  expect(opened).toMatchObject({ status: 'needs_response', held_minor: 2_500_000n, debited_minor: null, processor_dispute_id: lost });
  expect(await disputeOf(won)).toMatchObject({ status: 'needs_response', held_minor: 2_500_000n });
  expect(await journals(lost)).toEqual([{ kind: 'dispute_hold' }]);
  // the three payments credited, two disputes held
  expect(await available(shop)).toBe(before + 25000);
  expect(expectOk(await shop.client.get(`/v1/disputes/${opened!.gateway_reference}`)).status).toBe('needs_response');

  // bad input moves nothing
  for (const bad of [0, -1, 1.5, 'ten', 9000, undefined]) {
    const res = await advance(shop, bad);
    expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
  }
  expect(await svc.services.db.oneOrNone('SELECT 1 FROM sandbox_clocks WHERE business_id = $1', [shop.businessId])).toBeNull();

  // an hour on: nothing is due yet
  expect(expectOk(await advance(shop, 1))).toMatchObject({ ahead_hours: 1, disputes_moved: 0 });
  expect((await disputeOf(lost))!.status).toBe('needs_response');

  const moved = expectOk(await advance(shop, PAST));
  expect(moved).toMatchObject({ ahead_hours: PAST + 1, disputes_moved: 2 });
  expect(await disputeOf(lost)).toMatchObject({ status: 'accepted', debited_minor: 2_500_000n, resolution: 'auto-accepted' });
  expect(await disputeOf(won)).toMatchObject({ status: 'won', debited_minor: 0n, resolution: 'declined' });
  expect(await journals(lost)).toEqual([{ kind: 'dispute_hold' }, { kind: 'dispute_debit' }]);
  expect(await journals(won)).toEqual([{ kind: 'dispute_hold' }, { kind: 'dispute_release' }]);
  // the lost one's amount is gone, the won one's back
  expect(await available(shop)).toBe(before + 50000);

  // again, and the poll: nothing more
  expect(expectOk(await advance(shop, PAST)).disputes_moved).toBe(0);
  await svc.services.disputes.poll();
  expect(await journals(lost)).toEqual([{ kind: 'dispute_hold' }, { kind: 'dispute_debit' }]);
  expect(await available(shop)).toBe(before + 50000);
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);

it('a dispute accepted in part before the deadline is debited that part; past the deadline it stays so; another business clock is its own', async () => {
  const m = await setupMerchant(svc, { name: 'Jinja Cards' });
  const other = await setupMerchant(svc, { name: 'Gulu Cards' });
  const mine = await paidWith(m, LOST);
  const theirs = await paidWith(other, LOST);
  const d = (await disputeOf(mine))!;
  const accepted = expectOk(await m.client.post(`/v1/disputes/${d.gateway_reference}/accept`, { amount: 10000, message: 'Part was delivered' }));
  expect(accepted).toMatchObject({ status: 'accepted', debited_amount: 10000, resolution: 'merchant-accepted' });
  expect((await m.client.post(`/v1/disputes/${d.gateway_reference}/accept`, { message: 'Again' })).body.code).toBe('INVALID_STATE');
  expect(expectOk(await advance(m, PAST)).disputes_moved).toBe(0);
  expect(await disputeOf(mine)).toMatchObject({ status: 'accepted', debited_minor: 1_000_000n });
  expect(await journals(mine)).toEqual([{ kind: 'dispute_hold' }, { kind: 'dispute_debit' }]);
  // the other business's clock did not move: its dispute still waits
  expect((await disputeOf(theirs))!.status).toBe('needs_response');
  await svc.services.disputes.poll();
  expect((await disputeOf(theirs))!.status).toBe('needs_response');
}, 60_000);


it('refuses evidence on a sandbox dispute, open or closed, too large or not, each with its reason, and changes nothing', async () => {
  const m = await setupMerchant(svc, { name: 'Mbarara Cards' });
  const lost = await paidWith(m, LOST);
  const d = (await disputeOf(lost))!;
  const evidence = (body: object) => m.client.post(`/v1/disputes/${d.gateway_reference}/evidence`, body);
  const state = async () => ({
    dispute: await db().one('SELECT status, evidence, held_minor, debited_minor, resolution FROM disputes WHERE gateway_reference = $1', [d.gateway_reference]),
    answers: (await db().one<{ n: number }>('SELECT count(*)::int AS n FROM sandbox_dispute_answers a JOIN collections c ON c.id = a.collection_id WHERE c.gateway_reference = $1', [lost])).n,
    journals: await journals(lost),
    available: await available(m),
  });
  const body = {
    customer_email: 'amina.okello@example.com', customer_name: 'Amina Okello', customer_phone: '256700000123',
    service_details: 'A phone case, collected at the Mbarara shop', message: 'The customer collected the order in person',
  };
  const before = await state();
  expect(before.dispute).toMatchObject({ status: 'needs_response', evidence: null });

  const open = await evidence(body);
  expect([open.status, open.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(open.body.message).toMatch(/cannot be contested with evidence/);
  const large = await evidence({ ...body, file: { name: 'note.pdf', content_type: 'application/pdf', content: Buffer.alloc(40 * 1024 + 1).toString('base64') } });
  expect([large.status, large.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  expect(JSON.stringify(large.body)).toContain('file.content');
  expect(await state()).toEqual(before);

  // closed (accepted at its deadline): refused for its state, still nothing sent or kept
  expect(expectOk(await advance(m, PAST)).disputes_moved).toBe(1);
  const after = await state();
  expect(after.dispute).toMatchObject({ status: 'accepted', evidence: null });
  const closed = await evidence(body);
  expect([closed.status, closed.body.code]).toEqual([400, 'INVALID_STATE']);
  expect(closed.body.message).toMatch(/The dispute is accepted/);
  expect(await state()).toEqual(after);
  expect(await ledgerDrift(db())).toEqual([]);
}, 60_000);
