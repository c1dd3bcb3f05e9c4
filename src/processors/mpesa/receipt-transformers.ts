// M-Pesa refunds, pure: the receipt confirmed with Transaction Status before the reversal names it.
// Sources: the Daraja portal's "Transaction Status" page (developer.safaricom.co.ke/apis/TransactionStatus:
// "To check the status of a transaction, you are required to have either an M-Pesa Receipt number or an
// Originator Conversation ID of the transaction"; TransactionID = the receipt; asynchronous, the Result
// posted to ResultURL) and published Results of a Pay Bill Online payment queried this way, whose
// ResultParameters carry ReceiptNo, Amount (a number, 1.0), TransactionStatus "Completed", ReasonType
// "Pay Bill Online", DebitPartyName "0790422909 - <customer's name>" (the paying customer, phone in
// local form) and CreditPartyName "4149503 - <organisation>" (the short code paid); a client library's
// test reads a DebitPartyName written "<name> - 254711766223", so the phone is looked for on either side.
import { amountText, parseVendorAmount } from '../amounts';
import type { VendorAnswer } from '../transport';
import type { ConfirmationSent, Credentials, OriginalVerdict, RefundOrder } from '../types';
import { idOf, parameters } from './refund-transformers';
import type { DarajaResult } from './refund-transformers';
import { errorText, tokenRefused } from './transformers';

/** The Transaction Status query of a payment by its receipt (TransactionID), from the collecting short code. */
export function toReceiptStatusQuery(credentials: Credentials, receipt: string, callbackUrl: string): Record<string, string> {
  return {
    Initiator: credentials.initiator_name,
    SecurityCredential: credentials.security_credential,
    CommandID: 'TransactionStatusQuery',
    TransactionID: receipt,
    PartyA: credentials.short_code,
    IdentifierType: '4',
    ResultURL: callbackUrl,
    QueueTimeOutURL: callbackUrl,
    Remarks: 'Receipt check before refund',
    Occasion: 'Refund',
  };
}

/**
 * The answer to that query: accepted names the query's OriginatorConversationID, which its Result names
 * too. Asking is only reading, so anything but a definitive 400 is asked again later.
 */
export function confirmationSent(a: VendorAnswer): ConfirmationSent {
  if (a.kind === 'no_answer') return { kind: 'retry', detail: a.detail };
  const b = a.json as { ResponseCode?: unknown; OriginatorConversationID?: unknown } | undefined;
  const id = idOf(b?.OriginatorConversationID);
  if (a.status === 200 && String(b?.ResponseCode) === '0' && id) return { kind: 'asked', queryReference: id };
  if (a.status === 400 && !tokenRefused(a)) return { kind: 'refused', message: 'M-Pesa refused to look up the payment\'s receipt', detail: errorText(a) };
  return { kind: 'retry', detail: errorText(a) };
}

/** The query a Result answers: its own OriginatorConversationID (the parameter of that name is the payment's). */
export function confirmationAnswers(body: unknown): string | null {
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  return r && typeof r === 'object' ? idOf(r.OriginatorConversationID) : null;
}

/** The last nine digits of a Kenyan phone (07..., 2547..., +2547...), masked digits as '*'; null when there is none. */
function phoneKey(text: string): string | null {
  const m = /(?:\+?254|0)?([17*][\d*]{8})$/.exec(text.replace(/\s/g, ''));
  return m ? m[1] : null;
}

/** Whether a customer named in DebitPartyName is the collection's phone (a digit M-Pesa masks matches any). */
function samePhone(debitParty: string, accountNumber: string | null): boolean {
  const ours = accountNumber ? phoneKey(accountNumber) : null;
  if (!ours || ours.includes('*')) return false;
  return debitParty.split(' - ').some((part) => {
    const theirs = phoneKey(part.trim());
    return theirs !== null && [...theirs].every((c, i) => c === '*' || c === ours[i]);
  });
}

/**
 * The Result of the receipt's query read against the collection and the MID: the refund may name the
 * receipt only when M-Pesa says it is a completed payment of the collection's amount, from the
 * collection's customer, to this MID's short code (or its till). A Result still waiting in M-Pesa's
 * queue (ResultType 1) is asked again; any other failure of the query refuses the refund.
 */
export function judgeOriginal(credentials: Credentials, original: RefundOrder['original'], body: unknown): OriginalVerdict {
  const r = (body as { Result?: DarajaResult } | null)?.Result;
  const receipt = original.receipt ?? '';
  if (!r || typeof r !== 'object') return { verdict: 'wait', detail: 'not a Daraja Result' };
  const code = r.ResultCode === undefined || r.ResultCode === null ? null : String(r.ResultCode);
  const desc = typeof r.ResultDesc === 'string' ? ' ' + r.ResultDesc.slice(0, 200) : '';
  if (String(r.ResultType) === '1') return { verdict: 'wait', detail: `ResultType 1 ResultCode ${code ?? ''}${desc}` };
  const refused = (why: string): OriginalVerdict => ({ verdict: 'refused', message: `M-Pesa does not confirm receipt ${receipt} as this payment: ${why}` });
  if (code !== '0') return refused(`the receipt query answered ResultCode ${code ?? 'none'}${desc}`);
  const params = parameters(r);
  const text = (k: string): string => (typeof params.get(k) === 'string' || typeof params.get(k) === 'number' ? String(params.get(k)) : '');
  if (text('ReceiptNo') && text('ReceiptNo') !== receipt) return refused(`it answered about receipt ${text('ReceiptNo')}`);
  if (text('TransactionStatus') !== 'Completed') return refused(`its status is ${text('TransactionStatus') || 'not given'}`);
  const amount = parseVendorAmount(params.get('Amount'));
  if (amount !== original.amountMinor) return refused(`it was for ${amount === null ? 'no readable amount' : `KES ${amountText(amount, 2)}`}, the collection for KES ${amountText(original.amountMinor, 2)}`);
  const codes = [credentials.short_code, credentials.party_b].filter(Boolean);
  const creditCode = text('CreditPartyName').split(' - ')[0].trim();
  if (!codes.includes(creditCode)) return refused(`it was paid to ${creditCode || 'no named short code'}, not this MID's short code`);
  if (!samePhone(text('DebitPartyName'), original.accountNumber)) return refused("it was paid from another phone than the collection's customer");
  return { verdict: 'confirmed' };
}
