// Safaricom M-Pesa Express (Lipa na M-Pesa Online, STK push): the customer gets a prompt on the phone
// and approves it with the M-Pesa PIN.
import { checkByToken } from '../token-cache';
import type { CallContext, Connector, CredentialField, PaymentOrder, Plan, PlanInput, Processor, StatusQuery } from '../types';
import { promptPlan } from '../types';
import { MpesaClient } from './client';
import type { MpesaClientSettings } from './client';
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
];

export function mpesaProcessor(settings: MpesaClientSettings, now: () => Date = () => new Date()): Processor {
  const client = new MpesaClient(settings);
  const connector: Connector = {
    refunds: null,
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
