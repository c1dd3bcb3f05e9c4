// Paystack transport: HTTPS calls with a bearer secret key and a deadline (the shared callVendor); every
// answer goes through the pure readers of the *transformers.ts files. Nothing here logs or keeps a request
// body (a charge carries card data).
import type { CardDetails } from '../../domain/card';
import type { DisputeEvidence, DisputeFile } from '../../domain/dispute';
import { callVendor } from '../transport';
import type { PayoutObservedStatus, PayoutOrder, QueryResult, RefundOrder, SendResult } from '../types';
import { readRecipient, readTransfer, readTransferVerify, transferRequest } from './payout-transformers';
import type { RecipientRequest } from './payout-transformers';
import { readDisputeFetch, readDisputeList, readEvidence, readResolve, readUploadUrl } from './dispute-transformers';
import type { DisputeAnswer, ResolveAnswer } from './dispute-transformers';
import { readSettlementList, readSettlementTransactions } from './settlement-transformers';
import { readRefundCreate, readRefundFetch, readRefundList, refundRequest } from './refund-transformers';
import { chargeRequest, initializeRequest, readCharge, readInitialize, readVerify } from './transformers';
import type { ChargeAnswer, InitializeAnswer, PaystackPayment, VerifyAnswer } from './transformers';

/** Settlements, and a settlement's transactions, asked for per page. */
export const SETTLEMENT_PAGE_SIZE = 100;

/** Disputes asked for per page of GET /dispute. */
export const DISPUTE_PAGE_SIZE = 50;

export interface PaystackSettings {
  baseUrl: string;
  /** sk_test_... or sk_live_...: authenticates our calls and keys the webhook signature */
  secretKey: string;
  timeoutMs: number;
}

/** No answer: `sent` when the request may have reached Paystack (a deadline passed, a connection broke). */
export type Unreachable = { kind: 'unreachable'; sent: boolean; detail: string };

export class PaystackClient {
  constructor(private readonly s: PaystackSettings) {}

  private async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body: unknown, read: (status: number, json: unknown) => T): Promise<T | Unreachable> {
    const a = await callVendor({
      method,
      url: this.s.baseUrl.replace(/\/+$/, '') + path,
      headers: { authorization: `Bearer ${this.s.secretKey}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      timeoutMs: this.s.timeoutMs,
    });
    return a.kind === 'answer' ? read(a.status, a.json ?? null) : { kind: 'unreachable', sent: a.sent, detail: a.detail };
  }

  /** One page of the settlements made since `from` (Paystack's from, perPage and page). */
  listSettlements(from: Date, page: number) {
    const query = `from=${encodeURIComponent(from.toISOString())}&perPage=${SETTLEMENT_PAGE_SIZE}&page=${page}`;
    return this.call('GET', `/settlement?${query}`, undefined, readSettlementList);
  }

  /** One page of the transactions settlement `id` paid out. */
  settlementTransactions(id: string, page: number) {
    return this.call('GET', `/settlement/${encodeURIComponent(id)}/transactions?perPage=${SETTLEMENT_PAGE_SIZE}&page=${page}`, undefined, readSettlementTransactions);
  }

  initialize(p: PaystackPayment): Promise<InitializeAnswer | Unreachable> {
    return this.call('POST', '/transaction/initialize', initializeRequest(p), readInitialize);
  }

  verify(reference: string): Promise<VerifyAnswer | Unreachable> {
    return this.call('GET', `/transaction/verify/${encodeURIComponent(reference)}`, undefined, readVerify);
  }

  refund(order: RefundOrder): Promise<SendResult | Unreachable> {
    return this.call('POST', '/refund', refundRequest(order), readRefundCreate);
  }

  fetchRefund(id: string): Promise<QueryResult | Unreachable> {
    return this.call('GET', `/refund/${encodeURIComponent(id)}`, undefined, readRefundFetch);
  }

  /** A transaction's refunds (at most 100: a payment is never refunded in more parts than that), to find ours by its note. */
  findRefund(transactionReference: string, reference: string): Promise<QueryResult | Unreachable> {
    const query = `transaction=${encodeURIComponent(transactionReference)}&perPage=100`;
    return this.call('GET', `/refund?${query}`, undefined, (status, json) => readRefundList(status, json, transactionReference, reference));
  }

  createRecipient(r: RecipientRequest): Promise<{ kind: 'recipient'; code: string } | SendResult | Unreachable> {
    return this.call('POST', '/transferrecipient', r, readRecipient);
  }

  transfer(order: PayoutOrder, recipient: string): Promise<SendResult | Unreachable> {
    return this.call('POST', '/transfer', transferRequest(order, recipient), readTransfer);
  }

  verifyTransfer(reference: string): Promise<QueryResult<PayoutObservedStatus> | Unreachable> {
    return this.call('GET', `/transfer/verify/${encodeURIComponent(reference)}`, undefined, readTransferVerify);
  }

  fetchDispute(id: string): Promise<DisputeAnswer | Unreachable> {
    return this.call('GET', `/dispute/${encodeURIComponent(id)}`, undefined, readDisputeFetch);
  }

  /** One page of disputes opened since `from` (Paystack's from, perPage and page), at most DISPUTE_PAGE_SIZE. */
  listDisputes(from: Date, page: number) {
    const query = `from=${encodeURIComponent(from.toISOString())}&perPage=${DISPUTE_PAGE_SIZE}&page=${page}`;
    return this.call('GET', `/dispute?${query}`, undefined, readDisputeList);
  }

  /**
   * Accepts a dispute (merchant-accepted, for refundAmountMinor): the merchant's message goes up as a text
   * file through the dispute's upload URL (resolve requires an uploaded_filename), then PUT resolve.
   */
  async acceptDispute(id: string, refundAmountMinor: bigint, message: string): Promise<ResolveAnswer | Unreachable> {
    const file = { name: `acceptance-${id}.txt`, contentType: 'text/plain', bytes: Buffer.from(message, 'utf8') };
    return this.resolveWith(id, file, { resolution: 'merchant-accepted', message, refund_amount: String(refundAmountMinor) });
  }

  /**
   * Declines a dispute: POST evidence (Paystack's fields), then the file through the upload URL, then PUT
   * resolve declined with nothing refunded; the bank decides from there.
   */
  async declineDispute(id: string, evidence: DisputeEvidence, file: DisputeFile, message: string): Promise<ResolveAnswer | Unreachable> {
    const given = await this.call('POST', `/dispute/${encodeURIComponent(id)}/evidence`, evidence, readEvidence);
    if (given.kind !== 'done') return given;
    return this.resolveWith(id, file, { resolution: 'declined', message, refund_amount: '0' });
  }

  /** The file PUT to the dispute's signed upload URL, then PUT resolve naming it (resolve requires an uploaded_filename). */
  private async resolveWith(id: string, file: DisputeFile, resolution: { resolution: string; message: string; refund_amount: string }): Promise<ResolveAnswer | Unreachable> {
    const path = `/dispute/${encodeURIComponent(id)}`;
    const url = await this.call('GET', `${path}/upload_url?upload_filename=${encodeURIComponent(file.name)}`, undefined, readUploadUrl);
    if (url.kind !== 'upload') return url;
    const put = await callVendor({ method: 'PUT', url: url.signedUrl, headers: { 'content-type': file.contentType }, body: file.bytes, timeoutMs: this.s.timeoutMs });
    if (put.kind !== 'answer') return { kind: 'unreachable', sent: put.sent, detail: put.detail };
    if (put.status >= 300) return { kind: 'unreadable', detail: `the upload answered HTTP ${put.status}` };
    return this.call('PUT', `${path}/resolve`, { ...resolution, uploaded_filename: url.fileName }, readResolve);
  }

  /** One attempt, never repeated by us: card data is not kept to send again. */
  charge(p: PaystackPayment, card: CardDetails): Promise<ChargeAnswer | Unreachable> {
    return this.call('POST', '/charge', chargeRequest(p, card), readCharge);
  }
}
