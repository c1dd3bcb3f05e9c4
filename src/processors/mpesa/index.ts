// Safaricom M-Pesa Express (Lipa na M-Pesa Online, STK push): the customer gets a prompt on the phone
// and approves it with the M-Pesa PIN. Refunds are reversals of the payment (the Reversal API) and payouts
// are B2C payments, both answered asynchronously on their own callback URL.
import { checkByToken } from '../token-cache';
import type { CallContext, Connector, CredentialField, PaymentOrder, PayoutConnector, PayoutOrder, Plan, PlanInput, Processor, RefundConnector, RefundOrder, StatusQuery } from '../types';
import { promptPlan } from '../types';
import { MpesaClient } from './client';
import type { MpesaClientSettings } from './client';
import { b2cShortCode, missingPayoutCredentials, payoutCallbackNote, payoutSendResult, payoutStatusQuerySent, toB2c } from './payout-transformers';
import { confirmationAnswers, confirmationSent, judgeOriginal, toReceiptStatusQuery } from './receipt-transformers';
import { missingReversalCredentials, refundCallbackNote, reversalSendResult, statusQuerySent, toReversal, toStatusQuery } from './refund-transformers';
import { callbackNote, darajaPassword, darajaTimestamp, INSTITUTION, mpesaAmountDecimals, queryResult, sendResult, toStkPush } from './transformers';

const SECRET = /^[A-Za-z0-9+/=_-]{8,128}$/;
const TRANSACTION_TYPES = ['CustomerPayBillOnline', 'CustomerBuyGoodsOnline'];

/** What a MID of service type mpesa needs (a Daraja app and its Lipa na M-Pesa Online short code). */
export const MPESA_CREDENTIALS: CredentialField[] = [
  { name: 'consumer_key', description: "the Daraja app's consumer key", check: (v) => (SECRET.test(v) ? null : 'must be 8 to 128 letters and digits') },
  { name: 'consumer_secret', description: "the Daraja app's consumer secret", check: (v) => (SECRET.test(v) ? null : 'must be 8 to 128 letters and digits') },
  { name: 'short_code', description: 'BusinessShortCode (paybill or store number)', check: (v) => (/^\d{5,7}$/.test(v) ? null : 'must be 5 to 7 digits') },
  { name: 'pass_key', description: 'the Lipa na M-Pesa Online pass key', check: (v) => (/^[A-Za-z0-9]{16,128}$/.test(v) ? null : 'must be 16 to 128 letters and digits') },
  {
    name: 'transaction_type',
    description: 'CustomerPayBillOnline (paybill) or CustomerBuyGoodsOnline (till)',
    check: (v) => (TRANSACTION_TYPES.includes(v) ? null : `must be ${TRANSACTION_TYPES.join(' or ')}`),
  },
  {
    name: 'party_b',
    description: 'PartyB, the till number of a Buy Goods short code (default: short_code)',
    optional: true,
    check: (v) => (/^\d{5,7}$/.test(v) ? null : 'must be 5 to 7 digits'),
  },
  // Refunds are reversals, made by an API operator of the short code (the M-Pesa org portal's "Org
  // Reversals Initiator" role): a MID without these cannot refund.
  {
    name: 'initiator_name',
    description: 'Initiator: the API operator allowed to reverse payments (needed to refund)',
    optional: true,
    check: (v) => (/^[A-Za-z0-9_.-]{2,64}$/.test(v) ? null : 'must be 2 to 64 letters, digits, dots, dashes or underscores'),
  },
  {
    name: 'security_credential',
    description:
      "SecurityCredential: the initiator's password encrypted with Safaricom's M-Pesa certificate (RSA PKCS#1 v1.5, base64), as the Daraja portal generates it",
    optional: true,
    check: (v) => (/^[A-Za-z0-9+/]{100,1000}={0,2}$/.test(v) ? null : 'must be the base64 text of the encrypted password (100 to 1000 characters)'),
  },
  // Payouts are B2C payments from the B2C (bulk disbursement) short code, by the same initiator (which
  // then also needs the org portal's "B2C ORG API Initiator" role).
  {
    name: 'b2c_short_code',
    description: 'PartyA of payouts: the B2C short code money is paid out from (default: short_code)',
    optional: true,
    check: (v) => (/^\d{5,7}$/.test(v) ? null : 'must be 5 to 7 digits'),
  },
];

/**
 * Reversals of a receipt Transaction Status has confirmed as the collection's (originalCheck), settled
 * by results posted to the refund's callback URL. queryRefund sends a Transaction
 * Status query for the reversal (by its OriginatorConversationID) whose Result comes to the same URL,
 * and answers PENDING when Safaricom accepts it: no Daraja call answers a reversal's outcome at once.
 */
function mpesaRefunds(client: MpesaClient): RefundConnector {
  return {
    // Daraja's reversal takes the amount transacted, whole (toReversal)
    wholePaymentOnly: true,
    // the receipt came from a callback, which anyone holding its URL could forge: before a reversal
    // names it, Transaction Status must say it is this collection's payment (judgeOriginal)
    originalCheck: {
      async ask(ctx: CallContext, order: RefundOrder) {
        const missing = missingReversalCredentials(ctx.credentials);
        if (missing.length > 0) return { kind: 'refused', message: 'This M-Pesa MID has no reversal initiator, so it cannot refund', detail: `missing ${missing.join(', ')}` };
        const body = toReversal(ctx.credentials, order);
        if ('refused' in body) return { kind: 'refused', message: body.refused, detail: 'not asked' };
        const receipt = body.TransactionID;
        return confirmationSent(await client.post(ctx, '/mpesa/transactionstatus/v1/query', () => toReceiptStatusQuery(ctx.credentials, receipt, order.callbackUrl)));
      },
      answers: confirmationAnswers,
      judge: judgeOriginal,
    },
    async initiateRefund(ctx: CallContext, order: RefundOrder) {
      const missing = missingReversalCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'refused', message: 'This M-Pesa MID has no reversal initiator, so it cannot refund', detail: `missing ${missing.join(', ')}` };
      const body = toReversal(ctx.credentials, order);
      if ('refused' in body) return { kind: 'refused', message: body.refused, detail: 'not sent' };
      return reversalSendResult(await client.post(ctx, '/mpesa/reversal/v1/request', () => body));
    },
    async queryRefund(ctx: CallContext, q: StatusQuery) {
      const missing = missingReversalCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'unavailable', detail: `no reversal initiator (missing ${missing.join(', ')})` };
      if (!q.vendorReference) return { kind: 'unavailable', detail: 'no OriginatorConversationID: only the reversal result on the callback URL can settle it' };
      if (!q.callbackUrl) return { kind: 'unavailable', detail: 'no callback URL for the Transaction Status result' };
      const { vendorReference, callbackUrl } = q;
      return statusQuerySent(await client.post(ctx, '/mpesa/transactionstatus/v1/query', () => toStatusQuery(ctx.credentials, vendorReference, callbackUrl)));
    },
    parseRefundCallback: refundCallbackNote,
  };
}

/**
 * Payouts: B2C BusinessPayment with our reference as the OriginatorConversationID, settled by the Result
 * posted to the payout's callback URL; queryPayout sends a Transaction Status query for it, whose Result
 * comes to the same URL, and answers PENDING when Safaricom accepts it.
 */
function mpesaPayouts(client: MpesaClient): PayoutConnector {
  return {
    async initiatePayout(ctx: CallContext, order: PayoutOrder) {
      const missing = missingPayoutCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'refused', message: 'This M-Pesa MID has no B2C initiator, so it cannot pay out', detail: `missing ${missing.join(', ')}` };
      const body = toB2c(ctx.credentials, order);
      if ('refused' in body) return { kind: 'refused', message: body.refused, detail: 'not sent' };
      return payoutSendResult(await client.post(ctx, '/mpesa/b2c/v3/paymentrequest', () => body), order.reference);
    },
    async queryPayout(ctx: CallContext, q: StatusQuery) {
      const missing = missingPayoutCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'unavailable', detail: `no B2C initiator (missing ${missing.join(', ')})` };
      if (!q.callbackUrl) return { kind: 'unavailable', detail: 'no callback URL for the Transaction Status result' };
      const { callbackUrl } = q;
      // the OriginatorConversationID is ours, so a payout whose answer was lost can be asked about too
      const id = q.vendorReference ?? q.reference;
      return payoutStatusQuerySent(
        await client.post(ctx, '/mpesa/transactionstatus/v1/query', () => toStatusQuery(ctx.credentials, id, callbackUrl, b2cShortCode(ctx.credentials), 'Payout status')),
      );
    },
    parsePayoutCallback: payoutCallbackNote,
  };
}

export function mpesaProcessor(settings: MpesaClientSettings, now: () => Date = () => new Date()): Processor {
  const client = new MpesaClient(settings);
  const connector: Connector = {
    refunds: mpesaRefunds(client),
    payouts: mpesaPayouts(client),
    async initiate(ctx: CallContext, order: PaymentOrder) {
      return sendResult(await client.post(ctx, '/mpesa/stkpush/v1/processrequest', () => toStkPush(ctx.credentials, order, now())));
    },
    async queryStatus(ctx: CallContext, q: StatusQuery) {
      if (!q.vendorReference) return { kind: 'unavailable', detail: 'no CheckoutRequestID yet: waiting for the callback' };
      const checkoutRequestId = q.vendorReference;
      return queryResult(
        await client.post(ctx, '/mpesa/stkpushquery/v1/query', () => {
          const timestamp = darajaTimestamp(now());
          return {
            BusinessShortCode: ctx.credentials.short_code,
            Password: darajaPassword(ctx.credentials, timestamp),
            Timestamp: timestamp,
            CheckoutRequestID: checkoutRequestId,
          };
        }),
      );
    },
    parseCallback: callbackNote,
    checkCredentials: (ctx: CallContext) => checkByToken(() => client.fetchToken(ctx), 'Daraja'),
  };
  return {
    serviceType: 'mpesa',
    paymentMethods: ['MOBILE_MONEY'],
    credentials: MPESA_CREDENTIALS,
    amountDecimals: mpesaAmountDecimals,
    connector,
    plan: (input: PlanInput): Plan =>
      promptPlan(
        INSTITUTION,
        `M-Pesa sends a payment prompt for KES ${input.amountText} to ${input.accountNumber ?? ''}.`,
        'The customer enters their M-Pesa PIN on the phone to approve it.',
      ),
  };
}
