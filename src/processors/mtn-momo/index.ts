// MTN MoMo Collection (request to pay): the customer approves a prompt on the phone with the MoMo PIN.
// Refunds (Refund V1) and payouts (Transfer) go through the Disbursement product, with that product's own
// credentials on the MID.
import { checkByToken } from '../token-cache';
import type { CallContext, Connector, CredentialField, PaymentOrder, PayoutConnector, PayoutOrder, Plan, PlanInput, Processor, RefundConnector, RefundOrder, StatusQuery } from '../types';
import { promptPlan } from '../types';
import { MtnClient } from './client';
import type { MtnClientSettings } from './client';
import {
  callbackNote,
  INSTITUTION,
  missingDisbursementCredentials,
  mtnAmountDecimals,
  payoutQueryResult,
  payoutSendResult,
  queryResult,
  refundQueryResult,
  refundSendResult,
  sendResult,
  toRefund,
  toRequestToPay,
  toTransfer,
} from './transformers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY = /^[A-Za-z0-9]{16,128}$/;

/** What a MID of service type mtn_momo needs (the portal's API user provisioning and product subscription). */
export const MTN_CREDENTIALS: CredentialField[] = [
  { name: 'api_user', description: 'API user id (a UUID)', check: (v) => (UUID.test(v) ? null : 'must be a UUID') },
  { name: 'api_key', description: 'API key of the API user', check: (v) => (KEY.test(v) ? null : 'must be 16 to 128 letters and digits') },
  {
    name: 'subscription_key',
    description: 'Collection product subscription key (Ocp-Apim-Subscription-Key)',
    check: (v) => (KEY.test(v) ? null : 'must be 16 to 128 letters and digits'),
  },
  {
    name: 'target_environment',
    description: 'X-Target-Environment: sandbox, or the country value MTN gives for production (e.g. mtnuganda)',
    check: (v) => (/^[a-z]{3,40}$/.test(v) ? null : 'must be lower-case letters, e.g. sandbox or mtnuganda'),
  },
  // Refunds run on the Disbursement product, provisioned separately: a MID without these cannot refund.
  {
    name: 'disbursement_api_user',
    description: 'Disbursement product API user id (a UUID), needed to refund and to pay out',
    optional: true,
    check: (v) => (UUID.test(v) ? null : 'must be a UUID'),
  },
  {
    name: 'disbursement_api_key',
    description: 'API key of the Disbursement API user',
    optional: true,
    check: (v) => (KEY.test(v) ? null : 'must be 16 to 128 letters and digits'),
  },
  {
    name: 'disbursement_subscription_key',
    description: 'Disbursement product subscription key (Ocp-Apim-Subscription-Key)',
    optional: true,
    check: (v) => (KEY.test(v) ? null : 'must be 16 to 128 letters and digits'),
  },
];

function mtnRefunds(client: MtnClient): RefundConnector {
  return {
    async initiateRefund(ctx: CallContext, order: RefundOrder) {
      const missing = missingDisbursementCredentials(ctx.credentials);
      if (missing.length > 0) {
        return { kind: 'refused', message: 'This MTN MoMo MID has no Disbursement credentials, so it cannot refund', detail: `missing ${missing.join(', ')}` };
      }
      const body = toRefund(order);
      if (!body) return { kind: 'refused', message: `MTN MoMo takes ${order.currency} in whole units only`, detail: `amount ${order.amountMinor} not exact` };
      return refundSendResult(await client.refund(ctx, order.reference, order.callbackUrl, body));
    },
    async queryRefund(ctx: CallContext, q: StatusQuery) {
      const missing = missingDisbursementCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'unavailable', detail: `no Disbursement credentials (missing ${missing.join(', ')})` };
      return refundQueryResult(await client.refundStatus(ctx, q.reference));
    },
    // the refund callback is the refund resource, unsigned, like a collection's: only a prompt
    parseRefundCallback: callbackNote,
  };
}

/** Payouts: Transfer on the Disbursement product, to a mobile money wallet only. */
function mtnPayouts(client: MtnClient): PayoutConnector {
  return {
    async initiatePayout(ctx: CallContext, order: PayoutOrder) {
      const missing = missingDisbursementCredentials(ctx.credentials);
      if (missing.length > 0) {
        return { kind: 'refused', message: 'This MTN MoMo MID has no Disbursement credentials, so it cannot pay out', detail: `missing ${missing.join(', ')}` };
      }
      const body = toTransfer(order);
      if ('refused' in body) return { kind: 'refused', message: body.refused, detail: 'not sent' };
      return payoutSendResult(await client.transfer(ctx, order.reference, order.callbackUrl, body));
    },
    async queryPayout(ctx: CallContext, q: StatusQuery) {
      const missing = missingDisbursementCredentials(ctx.credentials);
      if (missing.length > 0) return { kind: 'unavailable', detail: `no Disbursement credentials (missing ${missing.join(', ')})` };
      return payoutQueryResult(await client.transferStatus(ctx, q.reference));
    },
    // the transfer callback is the Transfer resource, unsigned: only a prompt to query
    parsePayoutCallback: callbackNote,
  };
}

export function mtnMomoProcessor(settings: MtnClientSettings): Processor {
  const client = new MtnClient(settings);
  const connector: Connector = {
    refunds: mtnRefunds(client),
    payouts: mtnPayouts(client),
    async initiate(ctx: CallContext, order: PaymentOrder) {
      return sendResult(await client.requestToPay(ctx, order.reference, order.callbackUrl, toRequestToPay(order)));
    },
    async queryStatus(ctx: CallContext, q: StatusQuery) {
      return queryResult(await client.requestToPayStatus(ctx, q.reference));
    },
    parseCallback: callbackNote,
    checkCredentials: (ctx: CallContext) => checkByToken(() => client.fetchToken(ctx), 'MTN'),
  };
  return {
    serviceType: 'mtn_momo',
    paymentMethods: ['MOBILE_MONEY'],
    credentials: MTN_CREDENTIALS,
    amountDecimals: mtnAmountDecimals,
    connector,
    plan: (input: PlanInput): Plan =>
      promptPlan(
        INSTITUTION,
        `MTN Mobile Money sends a payment prompt for ${input.amountText} ${input.currency} to ${input.accountNumber ?? ''}.`,
        'The customer approves it with their MoMo PIN within about 5 minutes.',
      ),
  };
}
