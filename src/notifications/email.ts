// Email notices (docs/contract/webhooks.md): a start notice and a final summary for the merchant, a receipt
// for the customer. Plain text, built from the collection row: references, amounts, status, time.
// Never card data: the card number, its masked form, its fingerprint and the CVV are never read here.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type { CollectionRow } from '../domain/collection';
import { moneyText } from '../domain/currencies';
import { emailTime } from '../domain/time';

export type EmailKind = 'start' | 'summary' | 'receipt';

export interface EmailDraft {
  kind: EmailKind;
  recipient: string;
  subject: string;
  text: string;
}

/** In the currency's own decimals, grouped: "25,000 UGX", not "UGX 25000.00". */
const money = (currency: string, minor: bigint) => moneyText(minor, currency);

function merchantLines(row: CollectionRow, time: Date): string[] {
  return [
    `Gateway reference:  ${row.gateway_reference}`,
    `Merchant reference: ${row.merchant_reference}`,
    `Payment method:     ${row.payment_method}`,
    `Status:             ${row.status} (${row.message})`,
    `Amount requested:   ${money(row.request_currency, row.request_amount_minor)}`,
    `Amount to wallet:   ${money(row.account_currency, row.account_amount_minor)}`,
    `Fee:                ${money(row.account_currency, row.fee_minor)}${row.customer_charged ? ' (paid by the customer)' : ''}`,
    `Total credit:       ${money(row.account_currency, row.total_credit_minor)}`,
    `Time:               ${emailTime(time)}`,
  ];
}

const FOOTER = ['', 'This notice was sent by PayCollect. Query the collection with its gateway reference for details.'];

export function startNotice(row: CollectionRow, recipient: string, business: string): EmailDraft {
  return {
    kind: 'start',
    recipient,
    subject: `Collection ${row.gateway_reference} started: ${money(row.request_currency, row.request_amount_minor)}`,
    text: [`A collection for ${business} has started and awaits the customer's payment.`, '', ...merchantLines(row, row.created_at), ...FOOTER].join('\n'),
  };
}

export function finalSummary(row: CollectionRow, recipient: string, business: string): EmailDraft {
  return {
    kind: 'summary',
    recipient,
    subject: `Collection ${row.gateway_reference} ${row.status}: ${money(row.request_currency, row.request_amount_minor)}`,
    text: [`A collection for ${business} has ended with status ${row.status}.`, '', ...merchantLines(row, row.updated_at), ...FOOTER].join('\n'),
  };
}

const RECEIPT_HEADLINE: Record<string, string> = {
  COMPLETED: 'Thank you: your payment was received.',
  FAILED: 'Your payment did not go through; you were not charged.',
  CANCELLED: 'Your payment was cancelled; you were not charged.',
  EXPIRED: 'Your payment was not completed in time; you were not charged.',
  REVERSED: 'Your payment was reversed by the processor; the money went back to your account.',
};

export function receipt(row: CollectionRow, recipient: string, business: string): EmailDraft {
  const lines = [
    RECEIPT_HEADLINE[row.status] ?? `Your payment is ${row.status}.`,
    '',
    `Paid to:    ${business}`,
    `Reference:  ${row.merchant_reference} (${row.gateway_reference})`,
    `Amount:     ${money(row.request_currency, row.request_amount_minor)}`,
    ...(row.customer_charged ? [`Fee:        ${money(row.account_currency, row.fee_minor)}`] : []),
    `Status:     ${row.status}`,
    `Time:       ${emailTime(row.updated_at)}`,
    '',
    'Keep this email as your receipt. Questions about the purchase go to the merchant.',
  ];
  return {
    kind: 'receipt',
    recipient,
    subject: `Your payment to ${business}: ${row.status}`,
    text: lines.join('\n'),
  };
}

export interface OutgoingEmail {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  text: string;
}

const SMTP_TIMEOUT_MS = 20_000;

/** Sends through SMTP_URL, or writes an .eml file under DATA_DIR/mail when no SMTP server is set. */
export class Mailer {
  private transport: Transporter | null = null;

  constructor(
    private readonly smtpUrl: string | null,
    private readonly mailDir: string,
    private readonly from: string,
  ) {}

  private smtp(): Transporter {
    // the URL's own settings win over these defaults
    this.transport ??= nodemailer.createTransport({
      url: this.smtpUrl as string,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return this.transport;
  }

  /** Whether the SMTP server answers (connects and greets); true without SMTP (files need no server). */
  async reachable(): Promise<boolean> {
    if (!this.smtpUrl) return true;
    try {
      return await this.smtp().verify();
    } catch {
      return false;
    }
  }

  async send(mail: OutgoingEmail): Promise<void> {
    const message = { from: this.from, to: mail.recipient, subject: mail.subject, text: mail.text, headers: { 'X-PayCollect-Kind': mail.kind } };
    if (this.smtpUrl) {
      await this.smtp().sendMail(message);
      return;
    }
    const info = await nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }).sendMail(message);
    await mkdir(this.mailDir, { recursive: true });
    // written aside, then renamed: whoever reads the outbox never sees half a message
    const file = path.join(this.mailDir, `${mail.id}-${mail.kind}.eml`);
    await writeFile(`${file}.part`, info.message as Buffer);
    await rename(`${file}.part`, file);
  }
}
