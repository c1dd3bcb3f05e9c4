// Email notices of a refund, by the flags of the API token that asked for it (docs/contract/refunds.md):
// a summary for the merchant at the end (email_merchant), and a notice for the customer when the money
// is on its way back (email_user, when the collection had the customer's email). Plain text.
import type { EmailDraft } from '../notifications/email';
import { moneyText } from '../domain/currencies';
import { emailTime } from '../domain/time';
import type { RefundRow } from '../api-records/refund';

export interface RefundRecipients {
  notification_email: string;
  email_merchant: boolean;
  email_user: boolean;
  business_name: string;
}

/** In the currency's own decimals, grouped: "25,000 UGX", not "UGX 25000.00". */
const money = (currency: string, minor: bigint) => moneyText(minor, currency);

function merchantSummary(r: RefundRow, who: RefundRecipients): EmailDraft {
  const lines = [
    `A refund for ${who.business_name} has ended with status ${r.status}.`,
    '',
    `Refund reference:     ${r.gateway_reference}`,
    `Merchant reference:   ${r.merchant_reference}`,
    `Collection reference: ${r.collection_gateway_reference}`,
    `Status:               ${r.status} (${r.failure_reason ?? r.message})`,
    `Amount refunded:      ${money(r.currency, r.amount_minor)}`,
    `Taken from wallet:    ${money(r.account_currency, r.account_amount_minor)}${r.status === 'COMPLETED' ? '' : ' (returned to available)'}`,
    `Time:                 ${emailTime(r.updated_at)}`,
    '',
    'This notice was sent by PayCollect. Query the refund with its gateway reference for details.',
  ];
  return { kind: 'summary', recipient: who.notification_email, subject: `Refund ${r.gateway_reference} ${r.status}: ${money(r.currency, r.amount_minor)}`, text: lines.join('\n') };
}

function customerNotice(r: RefundRow, recipient: string, business: string): EmailDraft {
  const lines = [
    `${business} has refunded ${money(r.currency, r.amount_minor)} to you.`,
    '',
    `Reference: ${r.merchant_reference} (${r.gateway_reference})`,
    ...(r.claim_url ? [`Claim it here: ${r.claim_url}`] : []),
  ];
  return { kind: 'receipt', recipient, subject: `Refund from ${business}: ${money(r.currency, r.amount_minor)}`, text: lines.join('\n') };
}

/** The emails of a refund's move to `r.status`: the merchant's at a final state, the customer's on COMPLETED. */
export function refundEmails(r: RefundRow, who: RefundRecipients | null, customerEmail: string | null): EmailDraft[] {
  if (!who) return [];
  const out: EmailDraft[] = [];
  const final = r.status === 'COMPLETED' || r.status === 'FAILED' || r.status === 'CANCELLED';
  if (who.email_merchant && final) out.push(merchantSummary(r, who));
  if (who.email_user && customerEmail && r.status === 'COMPLETED') out.push(customerNotice(r, customerEmail, who.business_name));
  return out;
}
