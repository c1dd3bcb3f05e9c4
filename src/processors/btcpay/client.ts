// BTCPay Server Greenfield transport: the store's API key (`Authorization: token <key>`), a timeout, and the
// pure readers of transformers.ts. BTCPay is self-hosted: each MID names its own server and store.
import { callJson } from '../paystack/client';
import type { Unreachable } from '../paystack/client';
import { createInvoiceRequest, readInvoice, readInvoiceList } from './transformers';
import type { Invoice, InvoiceAnswer, InvoiceOrder, Unknown } from './transformers';

export interface BtcpayCredentials {
  /** the BTCPay Server's base URL, e.g. https://btcpay.shop.example */
  serverUrl: string;
  storeId: string;
  /** a Greenfield API key with btcpay.store.cancreateinvoice and btcpay.store.canviewinvoices */
  apiKey: string;
  /** the secret of the store's webhook (keys BTCPay-Sig) */
  webhookSecret: string;
}

export interface BtcpaySettings extends BtcpayCredentials {
  timeoutMs: number;
}

export class BtcpayClient {
  constructor(private readonly s: BtcpaySettings) {}

  private call(method: 'GET' | 'POST', path: string, body?: unknown) {
    const store = `/api/v1/stores/${encodeURIComponent(this.s.storeId)}`;
    return callJson(method, this.s.serverUrl.replace(/\/+$/, '') + store + path, `token ${this.s.apiKey}`, this.s.timeoutMs, body);
  }

  async createInvoice(o: InvoiceOrder): Promise<InvoiceAnswer | Unreachable> {
    const r = await this.call('POST', '/invoices', createInvoiceRequest(o));
    return 'kind' in r ? r : readInvoice(r.status, r.json);
  }

  async invoice(invoiceId: string): Promise<InvoiceAnswer | Unreachable> {
    const r = await this.call('GET', `/invoices/${encodeURIComponent(invoiceId)}`);
    return 'kind' in r ? r : readInvoice(r.status, r.json);
  }

  /** The invoices already made for our reference, newest first as BTCPay lists them. */
  async invoicesFor(gatewayReference: string): Promise<{ kind: 'list'; invoices: Invoice[] } | { kind: 'refused'; message: string } | Unknown | Unreachable> {
    const r = await this.call('GET', `/invoices?orderId=${encodeURIComponent(gatewayReference)}`);
    return 'kind' in r ? r : readInvoiceList(r.status, r.json);
  }
}
