// The e-mail a merchant gets when a dispute opens (docs/contract/disputes.md): what is disputed, what was
// held, and by when to answer. To the notification address of the API token that asked for the payment,
// when it asked for merchant e-mails. Plain text.
import type { EmailDraft } from '../notifications/email';
import { moneyText } from '../domain/currencies';
import { emailTime } from '../domain/time';

export interface DisputeRecipients {
  notification_email: string;
  email_merchant: boolean;
  business_name: string;
}

export interface OpenedDispute {
  gateway_reference: string;
  collection_gateway_reference: string;
  stage: string;
  reason: string | null;
  amount_minor: bigint;
  currency: string;
  held_minor: bigint;
  account_currency: string;
  deadline_at: Date;
}

export function disputeOpenedEmails(d: OpenedDispute, who: DisputeRecipients | null): EmailDraft[] {
  if (!who || !who.email_merchant) return [];
  const lines = [
    `A customer's bank has disputed a card payment to ${who.business_name}.`,
    '',
    `Dispute reference:    ${d.gateway_reference}`,
    `Collection reference: ${d.collection_gateway_reference}`,
    `Stage:                ${d.stage}${d.reason ? ` (${d.reason})` : ''}`,
    `Amount disputed:      ${moneyText(d.amount_minor, d.currency)}`,
    `Held from your wallet: ${moneyText(d.held_minor, d.account_currency)}`,
    `Answer before:        ${emailTime(d.deadline_at)}`,
    '',
    'Without an answer by then the processor accepts the dispute for you and the held amount is debited.',
  ];
  return [{ kind: 'summary', recipient: who.notification_email, subject: `Dispute ${d.gateway_reference}: ${moneyText(d.amount_minor, d.currency)} disputed`, text: lines.join('\n') }];
}

/** The reminder as the deadline nears, to the same address, for a dispute still needing an answer. */
export function disputeReminderEmails(d: OpenedDispute, who: DisputeRecipients | null): EmailDraft[] {
  if (!who || !who.email_merchant) return [];
  const lines = [
    `The deadline to answer dispute ${d.gateway_reference} is near: ${emailTime(d.deadline_at)}.`,
    '',
    `Collection reference: ${d.collection_gateway_reference}`,
    `Amount disputed:      ${moneyText(d.amount_minor, d.currency)}`,
    `Held from your wallet: ${moneyText(d.held_minor, d.account_currency)}`,
    '',
    'Without an answer by then the processor accepts the dispute for you and the held amount is debited.',
  ];
  return [{ kind: 'summary', recipient: who.notification_email, subject: `Reminder: dispute ${d.gateway_reference} must be answered by ${emailTime(d.deadline_at)}`, text: lines.join('\n') }];
}
