// Email notices of a disbursement to the business's owners (docs/contract/disbursements.md, "Emails"): one
// asking them to decide when it waits for approval (never to the person who asked for it), and one when it
// ends FAILED or REVERSED, its money back in the wallet. Plain text; one text for every owner.
import { moneyText } from '../domain/currencies';
import { maskedAccountNumber } from '../domain/disbursement';
import { emailTime } from '../domain/time';
import type { DisbursementRow } from '../api-records/disbursement';

/** An email for every active owner of the business but `exceptUserId`. */
export interface OwnersEmail {
  kind: 'disbursement_approval' | 'disbursement_returned';
  subject: string;
  text: string;
  exceptUserId: number | null;
}

const FOOTER = ['', 'This notice was sent by PayCollect to the owners of the business.'];

/** An email is read in more places than the dashboard, whose page (the email's link) shows the whole number. */
const maskedAccount = maskedAccountNumber;

function payoutLines(d: DisbursementRow): string[] {
  return [
    `Amount:             ${moneyText(d.amount_minor, d.currency)} (fee ${moneyText(d.fee_minor, d.currency)})`,
    `Recipient:          ${d.account_name} (${d.payment_method === 'BANK' ? `bank ${d.bank_code ?? ''} account ` : ''}${maskedAccount(d.account_number)})`,
    `Merchant reference: ${d.merchant_reference}`,
    `Gateway reference:  ${d.gateway_reference}`,
  ];
}

/** The owners' emails of a disbursement now in `d.status`; `pageUrl` is its page in the dashboard. */
export function disbursementEmails(d: DisbursementRow, business: string, pageUrl: string): OwnersEmail[] {
  const amount = moneyText(d.amount_minor, d.currency);
  if (d.status === 'PENDING_APPROVAL' && d.approval_expires_at) {
    const text = [
      `A disbursement of ${amount} from ${business} to ${d.account_name} waits for an owner's approval.`,
      '',
      ...payoutLines(d),
      `Decide before:      ${emailTime(d.approval_expires_at)} (it is cancelled if nobody decides by then)`,
      '',
      `Approve or reject it here: ${pageUrl}`,
      ...FOOTER,
    ];
    return [{ kind: 'disbursement_approval', subject: `Approve disbursement ${d.merchant_reference}: ${amount} to ${d.account_name}`, text: text.join('\n'), exceptUserId: d.requested_by_user_id ?? d.token_holder_user_id }];
  }
  if (d.status === 'FAILED' || d.status === 'REVERSED') {
    const what = d.status === 'FAILED' ? 'failed' : 'was reversed by the processor after it was paid';
    const text = [
      `A disbursement of ${amount} from ${business} to ${d.account_name} ${what}.`,
      `The amount and its fee, ${moneyText(d.amount_minor + d.fee_minor, d.currency)}, are back in the ${d.currency} wallet's available balance.`,
      '',
      ...payoutLines(d),
      `Status:             ${d.status} (${d.failure_reason ?? d.message})`,
      `Time:               ${emailTime(d.updated_at)}`,
      '',
      `Details: ${pageUrl}`,
      ...FOOTER,
    ];
    return [{ kind: 'disbursement_returned', subject: `Disbursement ${d.merchant_reference} ${d.status}: ${amount} back in your wallet`, text: text.join('\n'), exceptUserId: null }];
  }
  return [];
}
