// Money in and out with the SDK, against a sandbox service: a payment, a refund of part of it and a payout,
// each followed to its final state. The README runs it against the demo merchant that `npm start` prints
// (its test runs it too), so it cannot rot. Every merchant_reference is fixed: a second run answers the same
// records (the same reference and body is a replay), it pays nothing twice.
//
//   PAYCOLLECT_URL=http://localhost:8080 PAYCOLLECT_API_KEY=... PAYCOLLECT_API_SECRET=... npx tsx sdk/examples/money-out.ts
//
// In your own project, import from '@paycollect/sdk' instead of '../src'.
import { createPayCollect, unwrap } from '../src';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED', 'REVERSED']);
/** how often, and how many times, a record is read again while it is not final */
const POLL_MS = 500;
const POLLS = 180;

/** Reads a record until its transaction_status is final (webhooks tell a real integration instead). */
async function untilFinal<T extends { transaction_status: string }>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; i < POLLS; i++) {
    const record = await read();
    if (FINAL.has(record.transaction_status)) return record;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`not final after ${POLLS} reads`);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name}`);
  return value;
}

async function main(): Promise<void> {
  const pay = createPayCollect({
    baseUrl: required('PAYCOLLECT_URL'),
    apiKey: required('PAYCOLLECT_API_KEY'),
    apiSecret: required('PAYCOLLECT_API_SECRET'),
  });

  // 1. A payment from a designated success number: the sandbox's customer approves it.
  const { data: asked } = await unwrap(pay.api.POST('/v1/collections/request-to-pay', {
    body: { currency: 'UGX', amount: 30000, payment_method: 'MOBILE_MONEY', account_number: '256777000001', merchant_reference: 'ORD-0002-2025', narration: 'Order 0002 books' },
  }));
  const path = { gateway_reference: asked.gateway_reference };
  const paid = await untilFinal(async () => (await unwrap(pay.api.GET('/v1/collections/{gateway_reference}', { params: { path } }))).data);
  console.log(`payment ${paid.gateway_reference}: ${paid.transaction_status}`);

  // 2. A refund of part of it, through the processor that took it (leave amount out to refund the rest).
  const { data: refund } = await unwrap(pay.api.POST('/v1/collections/{gateway_reference}/refunds', {
    params: { path },
    body: { amount: 5000, merchant_reference: 'RFD-0002-2025', reason: 'One book out of stock' },
  }));

  // 3. A payout from the wallet to a phone (the client sends the API secret every disbursement call needs).
  const { data: payout } = await unwrap(pay.createDisbursement({
    amount: 7500, currency: 'UGX', payment_method: 'MOBILE_MONEY', account_number: '256772123456',
    account_name: 'Okello Transport Ltd', merchant_reference: 'PAY-0002-2025', narration: 'Delivery of order 0002',
  }));
  console.log(`refund ${refund.gateway_reference} and payout ${payout.gateway_reference}: ${refund.transaction_status}, ${payout.transaction_status}`);

  // Both are sent by the service's workers; the simulator's answer is read at the first status check.
  const [refunded, paidOut] = await Promise.all([
    untilFinal(async () => (await unwrap(pay.api.GET('/v1/refunds/{gateway_reference}', { params: { path: { gateway_reference: refund.gateway_reference } } }))).data),
    untilFinal(async () => (await unwrap(pay.getDisbursement(payout.gateway_reference))).data),
  ]);
  console.log(`refund ${refunded.gateway_reference}: ${refunded.transaction_status}`);
  console.log(`payout ${paidOut.gateway_reference}: ${paidOut.transaction_status}`);

  const { data: wallet } = await unwrap(pay.api.GET('/v1/data/wallets/{currency}/balance', { params: { path: { currency: 'UGX' } } }));
  console.log(`UGX wallet: ${wallet.available_balance} available`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
