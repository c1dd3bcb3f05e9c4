// A fake Safaricom Daraja (M-Pesa Express) over real HTTP. Reproduced behaviours and their sources:
// - GET /oauth/v1/generate?grant_type=client_credentials with `Authorization: Basic
//   base64(consumer_key:consumer_secret)`: 200 { access_token, expires_in: "3599" }, expires_in a
//   string (Daraja portal, "Authorization"; bdhobare/mpesa-android-sdk issue #5 shows the answer);
//   wrong credentials 400 { resultCode: "999991", resultDesc: "Invalid client id passed" }.
// - An expired or unknown token: HTTP 404 { requestId, errorCode: "404.001.03", errorMessage:
//   "Invalid Access Token" } (safaricom/LNMOnlineAndroidSample issue #11, martinmogusu/django-daraja
//   issue #11: the token "worked, then the next day" failed this way).
// - POST /mpesa/stkpush/v1/processrequest: Password = base64(BusinessShortCode + Passkey + Timestamp),
//   Timestamp YYYYMMDDHHmmss, TransactionType CustomerPayBillOnline | CustomerBuyGoodsOnline, whole
//   Amount, PhoneNumber 2547XXXXXXXX, AccountReference <= 12 and TransactionDesc <= 13 characters
//   (portal, "M-Pesa Express Simulate"); 200 { MerchantRequestID, CheckoutRequestID, ResponseCode:
//   "0", ResponseDescription, CustomerMessage }; bad input 400 { requestId, errorCode: "400.002.02",
//   errorMessage: "Bad Request - Invalid <Field>" } (osenco/osen-wc-mpesa issue #65: Invalid
//   PhoneNumber). A second push to a phone with a prompt still open: 500 errorCode 500.001.1001
//   "Unable to lock subscriber, a transaction is already in process for the current subscriber"
//   (the portal's error list; result code 1001 below is the same condition reported on the callback).
// - The callback: POST to CallBackURL { Body: { stkCallback: { MerchantRequestID, CheckoutRequestID,
//   ResultCode (a number), ResultDesc, CallbackMetadata } } }, CallbackMetadata (Amount,
//   MpesaReceiptNumber, TransactionDate, PhoneNumber) only on success (portal, "M-Pesa Express"
//   callback samples). Safaricom documents no retry of a callback: sent once.
// - POST /mpesa/stkpushquery/v1/query: while the prompt is open HTTP 500 { errorCode: "500.001.1001",
//   errorMessage: "The transaction is being processed" } (LNMOnlineAndroidSample issue #13: "That is
//   the standard response from the Mpesa Express Query status API"); afterwards 200 with ResultCode
//   and ResultDesc as strings; an unknown CheckoutRequestID 400 "Bad Request - Invalid CheckoutRequestID".
// - Result codes and descriptions: 0 processed successfully, 1 insufficient balance, 1032 cancelled by
//   user, 1037 DS timeout user cannot be reached, 1019 transaction expired, 2001 initiator information
//   invalid (wrong PIN), 1001 unable to lock subscriber (portal, "M-Pesa Express" result codes).
// Daraja's sandbox has one test number (254708374149, succeeds); the other numbers below are this
// fake's own, one per result code. Not Safaricom: the test controls (settle, expireTokens, swallow,
// the callback modes) are methods of the class.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { FakeServer, parseJson } from './web';

/** phone -> ResultCode the customer's answer produces; null: never answers (the prompt stays open). */
export const MPESA_TEST_NUMBERS: Record<string, number | null> = {
  '254708374149': 0,
  '254711000001': 1,
  '254711001032': 1032,
  '254711001037': 1037,
  '254711001019': 1019,
  '254711002001': 2001,
  '254711001001': 1001,
  '254711000000': null,
  '254711000003': null,
};
/** succeeds, but the callback's Amount is one shilling less than asked */
export const MPESA_SHORT_PAYMENT = '254711000002';

const RESULT_DESC: Record<number, string> = {
  0: 'The service request is processed successfully.',
  1: 'The balance is insufficient for the transaction.',
  1032: 'Request cancelled by user',
  1037: 'DS timeout user cannot be reached',
  1019: 'Transaction has expired',
  2001: 'The initiator information is invalid.',
  1001: 'Unable to lock subscriber, a transaction is already in process for the current subscriber',
};

export interface FakeMpesaOptions {
  consumerKey?: string;
  consumerSecret?: string;
  shortCode?: string;
  passKey?: string;
  tokenTtlSeconds?: number;
  answerAfterMs?: number;
  callbacks?: 'once' | 'drop' | 'duplicate';
  callbackDelayMs?: number;
}

export interface FakeStkPush {
  checkoutRequestId: string;
  merchantRequestId: string;
  amount: number;
  phone: string;
  accountReference: string;
  callbackUrl: string;
  /** null while the prompt is open */
  resultCode: number | null;
  receipt: string | null;
}

export class FakeMpesa extends FakeServer {
  readonly o: Required<FakeMpesaOptions>;
  readonly pushes = new Map<string, FakeStkPush>();
  readonly calls: { method: string; path: string; status: number }[] = [];
  readonly callbacksSent: { checkoutRequestId: string; status: number | string }[] = [];
  private readonly tokens = new Map<string, number>();
  /** pushes to accept but never answer (a lost answer: the caller times out) */
  swallow = 0;

  constructor(options: FakeMpesaOptions = {}) {
    super();
    this.o = {
      consumerKey: 'GvzjNnYgNJtwgwfLBkZh65VPwfuKvs0V',
      consumerSecret: 'oOpJICRVlyrGSAkM',
      shortCode: '174379',
      // Daraja's published sandbox pass key for short code 174379
      passKey: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
      tokenTtlSeconds: 3599,
      answerAfterMs: 20,
      callbacks: 'once',
      callbackDelayMs: 0,
      ...options,
    };
  }

  credentials(): Record<string, string> {
    return {
      consumer_key: this.o.consumerKey,
      consumer_secret: this.o.consumerSecret,
      short_code: this.o.shortCode,
      pass_key: this.o.passKey,
      transaction_type: 'CustomerPayBillOnline',
    };
  }

  byAccountReference(ref: string): FakeStkPush | undefined {
    return [...this.pushes.values()].find((p) => ref.startsWith(p.accountReference));
  }

  expireTokens(): void {
    for (const t of this.tokens.keys()) this.tokens.set(t, 0);
  }

  /** The customer answers now; the callback follows. */
  settle(checkoutRequestId: string, resultCode: number, amountDelta = 0): void {
    const p = this.pushes.get(checkoutRequestId);
    if (!p) throw new Error(`no push ${checkoutRequestId}`);
    p.resultCode = resultCode;
    p.receipt = resultCode === 0 ? 'NLJ' + randomBytes(4).toString('hex').toUpperCase() : null;
    if (this.o.callbacks === 'drop') return;
    const times = this.o.callbacks === 'duplicate' ? 2 : 1;
    for (let i = 0; i < times; i++) this.later(this.o.callbackDelayMs, () => this.callBack(p, p.amount + amountDelta));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, raw: string): Promise<void> {
    const requestId = `${randomBytes(2).toString('hex')}-${Date.now() % 1e8}-1`;
    const done = (status: number, body: unknown) => {
      this.calls.push({ method: req.method ?? '', path: url.pathname, status });
      this.json(res, status, body);
    };
    if (!this.answerable(req, res, { requestId, errorCode: '503.001.01', errorMessage: 'Service Unavailable' })) return;
    if (req.method === 'GET' && url.pathname === '/oauth/v1/generate') return done(...this.token(req, url));
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || (this.tokens.get(token) ?? 0) < Date.now()) return done(404, { requestId, errorCode: '404.001.03', errorMessage: 'Invalid Access Token' });
    const body = parseJson(raw) as Record<string, unknown> | null | undefined;
    const bad = (field: string) => done(400, { requestId, errorCode: '400.002.02', errorMessage: `Bad Request - Invalid ${field}` });
    if (req.method !== 'POST' || !body || typeof body !== 'object') return bad('Request');
    const auth = this.passwordProblem(body);
    if (auth) return bad(auth);
    if (url.pathname === '/mpesa/stkpush/v1/processrequest') {
      const answer = this.push(body, requestId);
      if (answer === 'swallowed') return;
      if (typeof answer === 'string') return bad(answer);
      return done(...answer);
    }
    if (url.pathname === '/mpesa/stkpushquery/v1/query') return done(...this.query(body, requestId));
    done(404, { requestId, errorCode: '404.002.01', errorMessage: 'Resource not found' });
  }

  private token(req: http.IncomingMessage, url: URL): [number, unknown] {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [key, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    if (url.searchParams.get('grant_type') !== 'client_credentials' || key !== this.o.consumerKey || secret !== this.o.consumerSecret) {
      return [400, { resultCode: '999991', resultDesc: 'Invalid client id passed' }];
    }
    const token = randomBytes(21).toString('base64url');
    this.tokens.set(token, Date.now() + this.o.tokenTtlSeconds * 1000);
    return [200, { access_token: token, expires_in: String(this.o.tokenTtlSeconds) }];
  }

  private passwordProblem(b: Record<string, unknown>): string | null {
    if (String(b.BusinessShortCode) !== this.o.shortCode) return 'BusinessShortCode';
    if (typeof b.Timestamp !== 'string' || !/^\d{14}$/.test(b.Timestamp)) return 'Timestamp';
    const expected = Buffer.from(`${this.o.shortCode}${this.o.passKey}${b.Timestamp}`).toString('base64');
    return b.Password === expected ? null : 'Password';
  }

  /** A field problem (400), the answer, or swallowed. */
  private push(b: Record<string, unknown>, requestId: string): string | [number, unknown] | 'swallowed' {
    if (!['CustomerPayBillOnline', 'CustomerBuyGoodsOnline'].includes(String(b.TransactionType))) return 'TransactionType';
    if (!Number.isInteger(Number(b.Amount)) || Number(b.Amount) < 1) return 'Amount';
    const phone = String(b.PhoneNumber);
    if (!/^254[17]\d{8}$/.test(phone) || String(b.PartyA) !== phone) return 'PhoneNumber';
    if (typeof b.CallBackURL !== 'string' || !/^https?:\/\//.test(b.CallBackURL)) return 'CallBackURL';
    if (typeof b.AccountReference !== 'string' || b.AccountReference.length > 12) return 'AccountReference';
    if (typeof b.TransactionDesc !== 'string' || b.TransactionDesc.length > 13) return 'TransactionDesc';
    if ([...this.pushes.values()].some((p) => p.phone === phone && p.resultCode === null)) {
      return [500, { requestId, errorCode: '500.001.1001', errorMessage: 'Unable to lock subscriber, a transaction is already in process for the current subscriber' }];
    }
    const p: FakeStkPush = {
      checkoutRequestId: `ws_CO_${Date.now()}${randomBytes(3).toString('hex')}`,
      merchantRequestId: `${randomBytes(2).toString('hex')}-${Date.now() % 1e8}-1`,
      amount: Number(b.Amount),
      phone,
      accountReference: b.AccountReference,
      callbackUrl: b.CallBackURL,
      resultCode: null,
      receipt: null,
    };
    this.pushes.set(p.checkoutRequestId, p);
    const code = phone === MPESA_SHORT_PAYMENT ? 0 : phone in MPESA_TEST_NUMBERS ? MPESA_TEST_NUMBERS[phone] : 0;
    if (code !== null) this.later(this.o.answerAfterMs, () => this.settle(p.checkoutRequestId, code, phone === MPESA_SHORT_PAYMENT ? -1 : 0));
    if (this.swallow > 0) {
      this.swallow -= 1;
      return 'swallowed';
    }
    const accepted = 'Success. Request accepted for processing';
    return [200, { MerchantRequestID: p.merchantRequestId, CheckoutRequestID: p.checkoutRequestId, ResponseCode: '0', ResponseDescription: accepted, CustomerMessage: accepted }];
  }

  private query(b: Record<string, unknown>, requestId: string): [number, unknown] {
    const p = this.pushes.get(String(b.CheckoutRequestID));
    if (!p) return [400, { requestId, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid CheckoutRequestID' }];
    if (p.resultCode === null) return [500, { requestId, errorCode: '500.001.1001', errorMessage: 'The transaction is being processed' }];
    return [
      200,
      {
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successsfully',
        MerchantRequestID: p.merchantRequestId,
        CheckoutRequestID: p.checkoutRequestId,
        ResultCode: String(p.resultCode),
        ResultDesc: RESULT_DESC[p.resultCode] ?? 'Unknown',
      },
    ];
  }

  private async callBack(p: FakeStkPush, amount: number): Promise<void> {
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: p.merchantRequestId,
      CheckoutRequestID: p.checkoutRequestId,
      ResultCode: p.resultCode,
      ResultDesc: RESULT_DESC[p.resultCode ?? -1] ?? 'Unknown',
    };
    if (p.resultCode === 0) {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: amount },
          { Name: 'MpesaReceiptNumber', Value: p.receipt },
          { Name: 'Balance' },
          { Name: 'TransactionDate', Value: 20261126102115 },
          { Name: 'PhoneNumber', Value: Number(p.phone) },
        ],
      };
    }
    let status: number | string;
    try {
      const res = await fetch(p.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Body: { stkCallback } }),
        signal: AbortSignal.timeout(5000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (e) {
      status = (e as Error).name;
    }
    this.callbacksSent.push({ checkoutRequestId: p.checkoutRequestId, status });
  }
}
