// The fake Paystack's disputes: the Disputes API's reads and the charge.dispute.* events, over the fake's
// real HTTP. Reproduced behaviours and their sources (Paystack's API reference, Disputes,
// paystack.com/docs/api/dispute; its webhook guide, "Dispute events"):
// - GET /dispute lists disputes (data: a list; from, to, perPage (default 50), page; meta with total, perPage,
//   page and pageCount), GET /dispute/:id fetches one (data: one object), unknown 404;
// - a dispute's status is awaiting-merchant-feedback when opened, awaiting-bank-feedback after the merchant
//   declines it with evidence, resolved when decided; `resolution` is merchant-accepted or declined, and
//   `refund_amount` what was refunded to the customer (null until resolved), `currency` null until then too:
//   the amount disputed is the transaction's;
// - the dispute's API object names its dates createdAt / updatedAt, the events' body created_at /
//   updated_at (the guide's samples against the reference's);
// - charge.dispute.create when a dispute opens, charge.dispute.remind as its deadline nears,
//   charge.dispute.resolve when it is resolved, signed like every event; nothing is sent when the merchant
//   declines (the bank's decision is the next event);
// - an unanswered dispute is accepted for the merchant at its deadline (Paystack's statement of its dispute
//   windows), here resolved merchant-accepted for the whole amount.
// - GET /dispute/:id/upload_url?upload_filename= answers data { signedUrl, fileName }: the file is PUT to
//   signedUrl (no key: the URL is signed), and PUT /dispute/:id/resolve { resolution merchant-accepted |
//   declined, message, refund_amount (string, smallest unit), uploaded_filename, evidence } needs that
//   fileName; a merchant-accepted resolution resolves the dispute for refund_amount (Paystack's Disputes API
//   reference, "Get upload URL" and "Resolve a dispute": all four fields required); a dispute already
//   resolved, or a refund_amount above the transaction, is refused 400 in the fake's own words.
// - POST /dispute/:id/evidence { customer_email, customer_name, customer_phone, service_details (required),
//   delivery_address, delivery_date (YYYY-MM-DD) } answers 201 data { id, dispute, ...the fields } and shows
//   on the dispute as `evidence` (Paystack's Disputes API reference, "Add evidence"); a missing required
//   field, or a dispute no longer awaiting the merchant, is refused 400 in the fake's own words.
// Not Paystack: the controls open, contest, bankDecides, expire, remind (the fake's `/__fake/*` of disputes).
import type { FakeTransaction } from './paystack';

export interface FakeDispute {
  id: number;
  transaction: FakeTransaction;
  status: 'awaiting-merchant-feedback' | 'awaiting-bank-feedback' | 'pending' | 'resolved' | 'archived';
  resolution: 'merchant-accepted' | 'declined' | null;
  refundAmount: number | null;
  category: string;
  note: string | null;
  createdAt: string;
  updatedAt: string;
  dueAt: string;
}

/** What the disputes need of the fake Paystack: its transactions, their view, and signed events. */
export interface DisputeHost {
  view(t: FakeTransaction): Record<string, unknown>;
  signedEvent(event: string, data: unknown, subject: string, forged?: boolean): void;
}

export class FakeDisputes {
  readonly all = new Map<number, FakeDispute>();
  private nextId = 1_002_867;

  constructor(private readonly host: DisputeHost) {}

  /** The API's object (GET /dispute, GET /dispute/:id). */
  apiView(d: FakeDispute) {
    return {
      id: d.id, refund_amount: d.refundAmount, currency: d.status === 'resolved' ? d.transaction.currency : null, status: d.status, resolution: d.resolution,
      domain: 'test', transaction: this.host.view(d.transaction), transaction_reference: null, category: d.category, customer: { email: d.transaction.email },
      bin: '408408', last4: d.transaction.cardLast4, dueAt: d.dueAt, resolvedAt: d.status === 'resolved' ? d.updatedAt : null, evidence: this.evidence.get(d.id) ?? null, attachments: null,
      note: d.note, history: [], messages: [], createdAt: d.createdAt, updatedAt: d.updatedAt,
    };
  }

  /** The events' body: the same dispute, its dates named the other way. */
  private eventView(d: FakeDispute) {
    const { createdAt, updatedAt, ...rest } = this.apiView(d);
    return { ...rest, created_at: createdAt, updated_at: updatedAt };
  }

  private event(d: FakeDispute, event: string, forged = false): void {
    this.host.signedEvent(event, this.eventView(d), `dispute ${d.id}`, forged);
  }

  /** A customer's bank disputes a paid transaction: charge.dispute.create follows. */
  open(t: FakeTransaction, o: { category?: string; note?: string; at?: Date } = {}): FakeDispute {
    const at = (o.at ?? new Date()).toISOString();
    const d: FakeDispute = {
      id: this.nextId++, transaction: t, status: 'awaiting-merchant-feedback', resolution: null, refundAmount: null, category: o.category ?? 'chargeback',
      note: o.note ?? 'Customer does not recognise the transaction', createdAt: at, updatedAt: at, dueAt: new Date(Date.parse(at) + 16 * 3_600_000).toISOString(),
    };
    this.all.set(d.id, d);
    this.event(d, 'charge.dispute.create');
    return d;
  }

  private get(id: number): FakeDispute {
    const d = this.all.get(id);
    if (!d) throw new Error(`no dispute ${id}`);
    return d;
  }

  /** The dispute's event again (a redelivery, or forged with another key). */
  resend(id: number, event: string, forged = false): void {
    this.event(this.get(id), event, forged);
  }

  /** The merchant declines it with evidence (on Paystack's dashboard or by the API): no event until the bank decides. */
  contest(id: number): void {
    const d = this.get(id);
    Object.assign(d, { status: 'awaiting-bank-feedback', resolution: 'declined', updatedAt: new Date().toISOString() });
  }

  /** The bank decides a contested dispute: for the merchant (nothing refunded) or the customer (the whole amount). */
  bankDecides(id: number, forMerchant: boolean): void {
    const d = this.get(id);
    Object.assign(d, { status: 'resolved', refundAmount: forMerchant ? 0 : d.transaction.amount, updatedAt: new Date().toISOString() });
    this.event(d, 'charge.dispute.resolve');
  }

  /** No answer by the deadline: accepted for the merchant, the whole amount refunded (or `amount`, a partial acceptance). */
  expire(id: number, amount?: number): void {
    const d = this.get(id);
    Object.assign(d, { status: 'resolved', resolution: 'merchant-accepted', refundAmount: amount ?? d.transaction.amount, updatedAt: new Date().toISOString() });
    this.event(d, 'charge.dispute.resolve');
  }

  /** Evidence given on a dispute, by the dispute's id. */
  readonly evidence = new Map<number, Record<string, unknown>>();

  private addEvidence(d: FakeDispute, body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, type: 'validation_error', code: 'invalid_params' } });
    for (const f of ['customer_email', 'customer_name', 'customer_phone', 'service_details']) if (typeof b[f] !== 'string' || !b[f]) return bad(`${f} is required`);
    if (b.delivery_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(b.delivery_date))) return bad('delivery_date must be YYYY-MM-DD');
    if (d.status !== 'awaiting-merchant-feedback') return bad('Dispute is not awaiting merchant feedback');
    const now = new Date().toISOString();
    const given = { ...b, id: 21_000 + this.evidence.size, dispute: d.id, createdAt: now, updatedAt: now };
    this.evidence.set(d.id, given);
    return { status: 201, json: { status: true, message: 'Evidence created', data: given } };
  }

  /** Files PUT to a signed upload URL, by name. */
  readonly uploads = new Map<string, string>();

  /** A PUT to a signed upload URL (no key): kept under its name. */
  upload(url: URL, raw: string): { status: number; json: unknown } {
    const name = decodeURIComponent(url.pathname.slice('/__uploads/'.length));
    if (!/^[\w.-]{1,120}$/.test(name)) return { status: 400, json: { message: 'bad upload name' } };
    this.uploads.set(name, raw);
    return { status: 200, json: {} };
  }

  private resolve(d: FakeDispute, body: unknown): { status: number; json: unknown } {
    const b = (body ?? {}) as Record<string, unknown>;
    const bad = (message: string) => ({ status: 400, json: { status: false, message, type: 'validation_error', code: 'invalid_params' } });
    if (b.resolution !== 'merchant-accepted' && b.resolution !== 'declined') return bad('Resolution must be merchant-accepted or declined');
    if (typeof b.message !== 'string' || !b.message) return bad('Message is required');
    if (typeof b.uploaded_filename !== 'string' || !this.uploads.has(b.uploaded_filename)) return bad('Uploaded filename is required');
    const refund = Number(b.refund_amount);
    if (typeof b.refund_amount !== 'string' || !Number.isSafeInteger(refund) || refund < 0 || refund > d.transaction.amount) return bad('Invalid refund amount');
    if (d.status !== 'awaiting-merchant-feedback') return bad('Dispute has already been resolved');
    const now = new Date().toISOString();
    if (b.resolution === 'declined') Object.assign(d, { status: 'awaiting-bank-feedback', resolution: 'declined', updatedAt: now });
    else {
      Object.assign(d, { status: 'resolved', resolution: 'merchant-accepted', refundAmount: refund, updatedAt: now });
      this.event(d, 'charge.dispute.resolve');
    }
    return { status: 200, json: { status: true, message: 'Dispute successfully resolved', data: this.apiView(d) } };
  }

  /** The Disputes API; null for a path that is not one. */
  route(method: string, url: URL, body: unknown, base: string): { status: number; json: unknown } | null {
    const uploadUrl = /^\/dispute\/(\d+)\/upload_url$/.exec(url.pathname);
    if (method === 'GET' && uploadUrl) {
      if (!this.all.has(Number(uploadUrl[1]))) return { status: 404, json: { status: false, message: 'Dispute not found' } };
      const fileName = `${uploadUrl[1]}-${Date.now().toString(36)}-${(url.searchParams.get('upload_filename') ?? 'file').replace(/[^\w.-]/g, '')}`;
      return { status: 200, json: { status: true, message: 'Upload url generated', data: { signedUrl: `${base}/__uploads/${fileName}`, fileName } } };
    }
    const evidence = /^\/dispute\/(\d+)\/evidence$/.exec(url.pathname);
    if (method === 'POST' && evidence) {
      const d = this.all.get(Number(evidence[1]));
      return d ? this.addEvidence(d, body) : { status: 404, json: { status: false, message: 'Dispute not found' } };
    }
    const resolve = /^\/dispute\/(\d+)\/resolve$/.exec(url.pathname);
    if (method === 'PUT' && resolve) {
      const d = this.all.get(Number(resolve[1]));
      return d ? this.resolve(d, body) : { status: 404, json: { status: false, message: 'Dispute not found' } };
    }
    const one = /^\/dispute\/(\d+)$/.exec(url.pathname);
    if (method === 'GET' && one) {
      const d = this.all.get(Number(one[1]));
      if (!d) return { status: 404, json: { status: false, message: 'Dispute not found' } };
      return { status: 200, json: { status: true, message: 'Dispute retrieved', data: this.apiView(d) } };
    }
    if (method === 'GET' && url.pathname === '/dispute') {
      const from = Date.parse(url.searchParams.get('from') ?? '') || 0;
      const perPage = Math.min(Number(url.searchParams.get('perPage') ?? 50) || 50, 100);
      const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
      const listed = [...this.all.values()].filter((d) => Date.parse(d.createdAt) >= from).reverse();
      const data = listed.slice((page - 1) * perPage, page * perPage).map((d) => this.apiView(d));
      const meta = { total: listed.length, skipped: (page - 1) * perPage, perPage, page, pageCount: Math.max(1, Math.ceil(listed.length / perPage)) };
      return { status: 200, json: { status: true, message: 'Disputes retrieved', data, meta } };
    }
    return null;
  }
}
