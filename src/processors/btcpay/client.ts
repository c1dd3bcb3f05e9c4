// BTCPay Server Greenfield transport: the store's API key (`Authorization: token <key>`), a deadline (the
// shared callVendor), and the pure readers of transformers.ts. BTCPay is self-hosted: each MID names its
// own server and store.
import { callVendor } from '../transport';
import type { RefundSendResult } from '../types';
import { createInvoiceRequest, readInvoice, readInvoiceList, readSettledInvoices, readPayouts, readPullPayment, readPullPaymentList, readRefundInvoice, refundInvoiceRequest } from './transformers';
import type { Invoice, InvoiceAnswer, InvoiceOrder, Unknown } from './transformers';

export interface BtcpaySettings {
  /** the BTCPay Server's base URL, e.g. https://btcpay.shop.example */
  serverUrl: string;
  storeId: string;
  /** a Greenfield API key with btcpay.store.cancreateinvoice and btcpay.store.canviewinvoices */
  apiKey: string;
  timeoutMs: number;
}

/** No answer: `sent` when the request may have reached the server. */
export type Unreachable = { kind: 'unreachable'; sent: boolean; detail: string };

export class BtcpayClient {
  constructor(private readonly s: BtcpaySettings) {}

  /** A call under the store (`/api/v1/stores/{storeId}` + path), or under `/api/v1` + path when `global`. */
  private async call<T>(method: 'GET' | 'POST', path: string, body: unknown, read: (status: number, json: unknown) => T, global = false): Promise<T | Unreachable> {
    const prefix = global ? '/api/v1' : `/api/v1/stores/${encodeURIComponent(this.s.storeId)}`;
    const a = await callVendor({
      method,
      url: this.s.serverUrl.replace(/\/+$/, '') + prefix + path,
      headers: { authorization: `token ${this.s.apiKey}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      timeoutMs: this.s.timeoutMs,
    });
    return a.kind === 'answer' ? read(a.status, a.json ?? null) : { kind: 'unreachable', sent: a.sent, detail: a.detail };
  }

  createInvoice(o: InvoiceOrder): Promise<InvoiceAnswer | Unreachable> {
    return this.call('POST', '/invoices', createInvoiceRequest(o), readInvoice);
  }

  invoice(invoiceId: string): Promise<InvoiceAnswer | Unreachable> {
    return this.call('GET', `/invoices/${encodeURIComponent(invoiceId)}`, undefined, readInvoice);
  }

  /** Refund (part of) a paid invoice: BTCPay makes a pull payment the customer claims. */
  refundInvoice(invoiceId: string, o: Parameters<typeof refundInvoiceRequest>[0]): Promise<RefundSendResult | Unreachable> {
    return this.call('POST', `/invoices/${encodeURIComponent(invoiceId)}/refund`, refundInvoiceRequest(o), readRefundInvoice);
  }

  pullPayment(id: string): Promise<ReturnType<typeof readPullPayment> | Unreachable> {
    return this.call('GET', `/pull-payments/${encodeURIComponent(id)}`, undefined, readPullPayment, true);
  }

  payouts(pullPaymentId: string): Promise<ReturnType<typeof readPayouts> | Unreachable> {
    return this.call('GET', `/pull-payments/${encodeURIComponent(pullPaymentId)}/payouts?includeCancelled=true`, undefined, readPayouts, true);
  }

  /** The store's pull payments, archived ones included, to find a refund whose answer was lost. */
  pullPaymentFor(reference: string): Promise<ReturnType<typeof readPullPaymentList> | Unreachable> {
    return this.call('GET', '/pull-payments?includeArchived=true', undefined, (status, json) => readPullPaymentList(status, json, reference));
  }

  /** Settled invoices created in [start, end), `take` of them after `skip`. */
  settledInvoices(start: Date, end: Date, skip: number, take: number) {
    const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
    const query = `status=Settled&startDate=${seconds(start)}&endDate=${seconds(end) - 1}&skip=${skip}&take=${take}`;
    return this.call('GET', `/invoices?${query}`, undefined, readSettledInvoices);
  }

  /** The invoices already made for our reference, newest first as BTCPay lists them. */
  invoicesFor(gatewayReference: string): Promise<{ kind: 'list'; invoices: Invoice[] } | { kind: 'refused'; message: string } | Unknown | Unreachable> {
    return this.call('GET', `/invoices?orderId=${encodeURIComponent(gatewayReference)}`, undefined, readInvoiceList);
  }
}
