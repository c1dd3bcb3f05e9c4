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
// - Reversals (portal, "Reversals", developer.safaricom.co.ke/apis/Reversal): POST
//   /mpesa/reversal/v1/request { Initiator, SecurityCredential, CommandID "TransactionReversal",
//   TransactionID (the M-Pesa receipt), Amount, ReceiverParty (the short code), RecieverIdentifierType
//   "11", ResultURL, QueueTimeOutURL, Remarks (2-100 characters), Occasion }; a bad field 400
//   { requestId, errorCode "400.002.02", errorMessage "Bad Request - Invalid <Field>" }; accepted
//   200 { OriginatorConversationID, ConversationID, ResponseCode "0", ResponseDescription "Accept the
//   service request successfully." }. The outcome is asynchronous: a Result POSTed to ResultURL
//   { Result: { ResultType 0, ResultCode, ResultDesc, OriginatorConversationID, ConversationID,
//   TransactionID, ResultParameters: { ResultParameter: [{ Key, Value }] } (on success only: Amount,
//   TransCompletedTime, OriginalTransactionID, Charge, ...), ReferenceData } }; result codes 0, R000001
//   "The transaction has already been reversed", R000002 "The OriginalTransactionID is invalid", 2001
//   "The initiator information is invalid" (a wrong initiator or security credential is reported in the
//   Result, not at the gateway), 1 insufficient balance (same page, "Result Codes").
//   SecurityCredential = base64 of the initiator password encrypted with the M-Pesa certificate's
//   public key, RSA PKCS#1 v1.5 (portal, "Getting started": security credentials): this fake makes its
//   own key pair and decrypts.
// - Transaction Status (portal, "Transaction Status", /apis/TransactionStatus): POST
//   /mpesa/transactionstatus/v1/query { Initiator, SecurityCredential, CommandID
//   "TransactionStatusQuery", TransactionID or OriginalConversationID, PartyA, IdentifierType "4",
//   ResultURL, QueueTimeOutURL, Remarks, Occasion }: 200 accepted as above, then a Result to ResultURL
//   whose ResultParameters carry TransactionStatus ("Completed"), Amount, ReceiptNo and the queried
//   transaction's OriginatorConversationID. The Overview: "you are required to have either an M-Pesa
//   Receipt number or an Originator Conversation ID of the transaction"; an STK push is found by its
//   receipt only (its answer gives MerchantRequestID and CheckoutRequestID, no OriginatorConversationID).
//   The Result about an STK payment follows a published Pay Bill Online Result: ReasonType "Pay Bill
//   Online", DebitPartyName "<phone in local form, 07...> - <customer's name>", CreditPartyName
//   "<short code> - <organisation>", Amount a number (1.0), ReceiptNo, TransactionStatus "Completed",
//   InitiatedTime and FinalisedTime, DebitAccountType "MMF Account For Customer", and an
//   OriginatorConversationID parameter of M-Pesa's own (not the query's, which heads the Result).
// - QueueTimeOutURL: the portal says only that it is told when a request times out in the queue. This
//   fake's own shape for that notice: the Result envelope with ResultType 1 (the status page's "1:
//   waiting for further messages"), ResultCode "1037" and ResultDesc "The request timed out in the
//   queue"; the reversal is then carried out late, its Result following.
// - B2C payouts (portal, "Business To Customer (B2C)", /apis/BusinessToCustomer): POST
//   /mpesa/b2c/v3/paymentrequest { OriginatorConversationID (ours), InitiatorName, SecurityCredential,
//   CommandID BusinessPayment | SalaryPayment | PromotionPayment, Amount (whole), PartyA (the B2C short
//   code), PartyB (2547XXXXXXXX, no plus sign), Remarks, QueueTimeOutURL, ResultURL, Occasion }; 200
//   { ConversationID, OriginatorConversationID, ResponseCode "0", ResponseDescription }; then a Result to
//   ResultURL with, on success, ResultParameters TransactionAmount, TransactionReceipt,
//   B2CRecipientIsRegisteredCustomer, ReceiverPartyPublicName, TransactionCompletedDateTime and the
//   account balances; result codes 0, 1 (insufficient balance), 2001 (initiator), 2040 (not a registered
//   customer: BusinessPayment "supports only M-PESA registered customers",
//   truehostcloud/mpesa-python-client, B2CPaymentRequest page). The Transaction Status query finds a
//   payout by its OriginatorConversationID as it finds a reversal; a reversed payout reads "Reversed".
// The fake's own choices where Safaricom does not say: a reused OriginatorConversationID on B2C is a 400
// "Bad Request - Duplicate OriginatorConversationID" (nothing paid twice); 254711002040 is not a
// registered customer (2040); a reversal whose Amount is not the payment's
// fails R000002; a status query naming an unknown request or a failed reversal answers ResultCode
// R000002 / TransactionStatus "Failed"; a reversal not yet carried out has TransactionStatus "Pending";
// a Buy Goods payment reads ReasonType "Buy Goods Online" and credits party_b; the customer's name is
// "John Doe"; an STK payment's status stays "Completed" after its reversal.
// Daraja's sandbox has one test number (254708374149, succeeds); the other numbers below are this
// fake's own, one per result code. Not Safaricom: the test controls (settle, expireTokens, swallow,
// the callback modes, failNextReversal, dropResults, queueTimeoutNext, swallowReversal,
// garbageReversal, holdNextReversal, failNextPayout, swallowPayout, garbagePayout, holdNextPayout,
// finishPayout, reversePayout) are fields and methods of the class.
import { constants, generateKeyPairSync, privateDecrypt, publicEncrypt, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
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
  /** PartyA of B2C payouts (a bulk disbursement short code of its own) */
  b2cShortCode?: string;
  initiatorName?: string;
  initiatorPassword?: string;
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
  transactionType: string;
  /** PartyB: the short code (paybill) or till credited */
  partyB: string;
  merchantRequestId: string;
  amount: number;
  phone: string;
  accountReference: string;
  callbackUrl: string;
  /** null while the prompt is open */
  resultCode: number | null;
  receipt: string | null;
  /** when the customer's answer was carried out (the statement's Completion Time) */
  settledAt?: Date;
}

export interface FakeReversal {
  originatorConversationId: string;
  conversationId: string;
  transactionId: string;
  amount: number;
  resultUrl: string;
  queueTimeOutUrl: string;
  remarks: string;
  occasion: string;
  /** null until carried out */
  resultCode: string | null;
  receipt: string | null;
}

export interface FakeB2cPayment {
  originatorConversationId: string;
  conversationId: string;
  commandId: string;
  amount: number;
  partyA: string;
  partyB: string;
  resultUrl: string;
  queueTimeOutUrl: string;
  remarks: string;
  occasion: string;
  /** null until carried out */
  resultCode: string | null;
  receipt: string | null;
  /** taken back after it completed (reversePayout) */
  reversed: boolean;
}

/** the fake's own: a number M-Pesa knows as no registered customer */
export const MPESA_UNREGISTERED = '254711002040';

const B2C_DESC: Record<string, string> = {
  '0': 'The service request is processed successfully.',
  '1': 'The balance is insufficient for the transaction.',
  '2001': 'The initiator information is invalid.',
  '2040': "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
};

/** The PKCS#1 v1.5 block of an RSA decryption (00 02 <random non-zero> 00 <message>) -> the message, or null. */
function unpadPkcs1(block: Buffer): Buffer | null {
  if (block[0] !== 0 || block[1] !== 2) return null;
  const end = block.indexOf(0, 2);
  return end >= 10 ? block.subarray(end + 1) : null;
}

const REVERSAL_DESC: Record<string, string> = {
  '0': 'The service request is processed successfully.',
  R000001: 'The transaction has already been reversed.',
  R000002: 'The OriginalTransactionID is invalid.',
  '1': 'The balance is insufficient for the transaction.',
  '2001': 'The initiator information is invalid.',
  '11': 'The DebitParty is in an invalid state.',
};

export class FakeMpesa extends FakeServer {
  readonly o: Required<FakeMpesaOptions>;
  readonly pushes = new Map<string, FakeStkPush>();
  readonly calls: { method: string; path: string; status: number }[] = [];
  readonly callbacksSent: { checkoutRequestId: string; status: number | string }[] = [];
  private readonly tokens = new Map<string, number>();
  /** pushes to accept but never answer (a lost answer: the caller times out) */
  swallow = 0;
  readonly reversals = new Map<string, FakeReversal>();
  /** every Result and queue-timeout notice posted, in order */
  readonly resultsSent: { url: string; body: unknown; status: number | string }[] = [];
  /** reversals accepted and carried out whose answer is never sent */
  swallowReversal = 0;
  /** reversals answered 200 with a body that is not JSON (carried out all the same) */
  garbageReversal = 0;
  /** Results (of reversals and status queries) carried out but never posted: lost callbacks */
  dropResults = 0;
  /** every Transaction Status query accepted, by what it named (the receipt or an OriginatorConversationID) */
  readonly statusQueries: { transactionId: string | null; originalConversationId: string | null; resultUrl: string }[] = [];
  /** Results to one URL to drop, by count: a test's own lost callback, which a late Result of an earlier test cannot take */
  readonly dropResultsTo = new Map<string, number>();
  /** reversals first reported to QueueTimeOutURL, then carried out late */
  queueTimeoutNext = 0;
  /** reversals left undone until finishReversal */
  holdNextReversal = 0;
  private readonly reversalFailures: string[] = [];
  readonly payments = new Map<string, FakeB2cPayment>();
  /** payouts accepted and carried out whose answer is never sent */
  swallowPayout = 0;
  /** payouts answered 200 with a body that is not JSON (carried out all the same) */
  garbagePayout = 0;
  /** payouts left undone until finishPayout */
  holdNextPayout = 0;
  private readonly payoutFailures: string[] = [];
  private readonly key: { publicKey: KeyObject; privateKey: KeyObject };

  constructor(options: FakeMpesaOptions = {}) {
    super();
    this.o = {
      initiatorName: 'testapi',
      initiatorPassword: 'Safaricom999!*!',
      consumerKey: 'GvzjNnYgNJtwgwfLBkZh65VPwfuKvs0V',
      consumerSecret: 'oOpJICRVlyrGSAkM',
      shortCode: '174379',
      b2cShortCode: '600996',
      // Daraja's published sandbox pass key for short code 174379
      passKey: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
      tokenTtlSeconds: 3599,
      answerAfterMs: 20,
      callbacks: 'once',
      callbackDelayMs: 0,
      ...options,
    };
    this.key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  }

  /** The initiator password encrypted as the Daraja portal does, with this fake's public key. */
  securityCredential(password = this.o.initiatorPassword): string {
    return publicEncrypt({ key: this.key.publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password)).toString('base64');
  }

  /** The credentials with a reversal initiator, so that the MID can refund. */
  refundCredentials(): Record<string, string> {
    return { ...this.credentials(), initiator_name: this.o.initiatorName, security_credential: this.securityCredential() };
  }

  /** The credentials with a B2C initiator and short code, so that the MID can pay out. */
  payoutCredentials(): Record<string, string> {
    return { ...this.refundCredentials(), b2c_short_code: this.o.b2cShortCode };
  }

  /** The next payout is accepted, then its Result carries this ResultCode (e.g. "1", "2001"). */
  failNextPayout(resultCode: string): void {
    this.payoutFailures.push(resultCode);
  }

  /** A completed payout is taken back: the Transaction Status query reads it "Reversed" from now on. */
  reversePayout(originatorConversationId: string): void {
    const p = this.payments.get(originatorConversationId);
    if (!p || p.resultCode !== '0') throw new Error(`no completed payout ${originatorConversationId}`);
    p.reversed = true;
  }

  /** The next reversal is accepted, then its Result carries this ResultCode (e.g. "1", "2001"). */
  failNextReversal(resultCode: string): void {
    this.reversalFailures.push(resultCode);
  }

  /**
   * Not Daraja: the test's shortcut for 10,000 payments. Records payments as this fake would have carried
   * them out (a push the customer paid, with its receipt and completion time) without the HTTP round trips;
   * the service's side of each is seeded apart (test/helpers/bulk-payments.ts).
   */
  sawPaid(payments: { receipt: string; amount: number; phone: string; accountReference: string; at: Date }[]): void {
    for (const [i, p] of payments.entries()) {
      const checkoutRequestId = `ws_CO_bulk${p.receipt}${i}`;
      this.pushes.set(checkoutRequestId, {
        checkoutRequestId, merchantRequestId: `bulk-${i}`, amount: p.amount, transactionType: 'CustomerPayBillOnline', partyB: this.o.shortCode,
        phone: p.phone, accountReference: p.accountReference, callbackUrl: '', resultCode: 0, receipt: p.receipt, settledAt: p.at,
      });
    }
  }

  byReceipt(receipt: string): FakeStkPush | undefined {
    return [...this.pushes.values()].find((p) => p.receipt === receipt);
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
    // a receipt is ten letters and digits (NLJ7RT61SV in the portal's callback sample)
    p.receipt = resultCode === 0 ? 'NLJ' + randomBytes(4).toString('hex').toUpperCase().slice(0, 7) : null;
    p.settledAt = new Date();
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
    if (url.pathname === '/mpesa/reversal/v1/request') {
      const answer = this.reverse(body);
      if (answer === 'swallowed') return;
      if (answer === 'garbage') {
        this.calls.push({ method: 'POST', path: url.pathname, status: 200 });
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Upstream error</body></html>');
        return;
      }
      if (typeof answer === 'string') return bad(answer);
      return done(200, answer);
    }
    if (url.pathname === '/mpesa/b2c/v3/paymentrequest') {
      if (typeof body.OriginatorConversationID === 'string' && this.payments.has(body.OriginatorConversationID)) {
        return done(400, { requestId, errorCode: '400.002.02', errorMessage: 'Bad Request - Duplicate OriginatorConversationID' });
      }
      const answer = this.pay(body);
      if (answer === 'swallowed') return;
      if (answer === 'garbage') {
        this.calls.push({ method: 'POST', path: url.pathname, status: 200 });
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Upstream error</body></html>');
        return;
      }
      if (typeof answer === 'string') return bad(answer);
      return done(200, answer);
    }
    if (url.pathname === '/mpesa/transactionstatus/v1/query') {
      const answer = this.transactionStatus(body);
      return typeof answer === 'string' ? bad(answer) : done(200, answer);
    }
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
    // the reversal, status and B2C APIs authenticate with the initiator in their Result, not a pass key
    if (b.CommandID === 'TransactionReversal' || b.CommandID === 'TransactionStatusQuery' || 'InitiatorName' in b) return null;
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
      transactionType: String(b.TransactionType),
      partyB: String(b.PartyB),
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

  /** Whether the initiator and its encrypted password are this short code's reversal operator. */
  private initiatorValid(b: Record<string, unknown>): boolean {
    if (b.Initiator !== this.o.initiatorName || typeof b.SecurityCredential !== 'string') return false;
    try {
      const block = privateDecrypt({ key: this.key.privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(b.SecurityCredential, 'base64'));
      return unpadPkcs1(block)?.toString('utf8') === this.o.initiatorPassword;
    } catch {
      return false;
    }
  }

  private static url(v: unknown): v is string {
    return typeof v === 'string' && /^https?:\/\//.test(v);
  }

  private newIds(): { originatorConversationId: string; conversationId: string } {
    return {
      originatorConversationId: `${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}${Date.now() % 1e7}`,
      conversationId: `AG_20261126_${randomBytes(10).toString('hex')}`,
    };
  }

  /** A field problem (400), the acknowledgement, or what the controls make of it. */
  private reverse(b: Record<string, unknown>): string | Record<string, unknown> | 'swallowed' | 'garbage' {
    if (b.CommandID !== 'TransactionReversal') return 'CommandID';
    if (typeof b.TransactionID !== 'string' || !/^[A-Z0-9]{10}$/.test(b.TransactionID)) return 'TransactionID';
    if (!Number.isFinite(Number(b.Amount)) || Number(b.Amount) <= 0) return 'Amount';
    if (String(b.ReceiverParty) !== this.o.shortCode) return 'ReceiverParty';
    if (String(b.RecieverIdentifierType) !== '11') return 'RecieverIdentifierType';
    if (!FakeMpesa.url(b.ResultURL)) return 'ResultURL';
    if (!FakeMpesa.url(b.QueueTimeOutURL)) return 'QueueTimeOutURL';
    if (typeof b.Remarks !== 'string' || b.Remarks.length < 2 || b.Remarks.length > 100) return 'Remarks';
    const r: FakeReversal = {
      ...this.newIds(),
      transactionId: b.TransactionID, amount: Number(b.Amount), resultUrl: b.ResultURL, queueTimeOutUrl: b.QueueTimeOutURL,
      remarks: b.Remarks, occasion: typeof b.Occasion === 'string' ? b.Occasion : '', resultCode: null, receipt: null,
    };
    const code = this.reversalFailures.shift() ?? (this.initiatorValid(b) ? this.reversalCode(r) : '2001');
    this.reversals.set(r.originatorConversationId, r);
    if (this.queueTimeoutNext > 0) {
      this.queueTimeoutNext -= 1;
      this.later(this.o.answerAfterMs, () => this.postResult(r.queueTimeOutUrl, { Result: { ResultType: 1, ResultCode: '1037', ResultDesc: 'The request timed out in the queue', OriginatorConversationID: r.originatorConversationId, ConversationID: r.conversationId } }));
      this.later(this.o.answerAfterMs * 3, () => this.finishReversal(r.originatorConversationId, code));
    } else if (this.holdNextReversal > 0) {
      this.holdNextReversal -= 1;
    } else {
      this.later(this.o.answerAfterMs, () => this.finishReversal(r.originatorConversationId, code));
    }
    if (this.swallowReversal > 0) {
      this.swallowReversal -= 1;
      return 'swallowed';
    }
    if (this.garbageReversal > 0) {
      this.garbageReversal -= 1;
      return 'garbage';
    }
    return { OriginatorConversationID: r.originatorConversationId, ConversationID: r.conversationId, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
  }

  /** A B2C payment: a field problem (400), the acknowledgement, or what the controls make of it. */
  private pay(b: Record<string, unknown>): string | Record<string, unknown> | 'swallowed' | 'garbage' {
    const id = b.OriginatorConversationID;
    if (typeof id !== 'string' || !/^[\w-]{1,64}$/.test(id)) return 'OriginatorConversationID';
    if (!['BusinessPayment', 'SalaryPayment', 'PromotionPayment'].includes(String(b.CommandID))) return 'CommandID';
    if (!Number.isSafeInteger(b.Amount) || Number(b.Amount) <= 0) return 'Amount';
    if (String(b.PartyA) !== this.o.b2cShortCode) return 'PartyA';
    if (!/^254\d{9}$/.test(String(b.PartyB))) return 'PartyB';
    if (!FakeMpesa.url(b.ResultURL)) return 'ResultURL';
    if (!FakeMpesa.url(b.QueueTimeOutURL)) return 'QueueTimeOutURL';
    if (typeof b.Remarks !== 'string' || b.Remarks.length < 2 || b.Remarks.length > 100) return 'Remarks';
    const conversationId = this.newIds().conversationId;
    const p: FakeB2cPayment = {
      originatorConversationId: id, conversationId, commandId: String(b.CommandID), amount: Number(b.Amount), partyA: String(b.PartyA), partyB: String(b.PartyB),
      resultUrl: b.ResultURL, queueTimeOutUrl: b.QueueTimeOutURL, remarks: b.Remarks, occasion: typeof b.Occasion === 'string' ? b.Occasion : '',
      resultCode: null, receipt: null, reversed: false,
    };
    const code = this.payoutFailures.shift() ?? (!this.initiatorValid({ Initiator: b.InitiatorName, SecurityCredential: b.SecurityCredential }) ? '2001' : p.partyB === MPESA_UNREGISTERED ? '2040' : '0');
    this.payments.set(id, p);
    if (this.queueTimeoutNext > 0) {
      this.queueTimeoutNext -= 1;
      this.later(this.o.answerAfterMs, () => this.postResult(p.queueTimeOutUrl, { Result: { ResultType: 1, ResultCode: '1037', ResultDesc: 'The request timed out in the queue', OriginatorConversationID: id, ConversationID: conversationId } }));
      this.later(this.o.answerAfterMs * 3, () => this.finishPayout(id, code));
    } else if (this.holdNextPayout > 0) {
      this.holdNextPayout -= 1;
    } else {
      this.later(this.o.answerAfterMs, () => this.finishPayout(id, code));
    }
    if (this.swallowPayout > 0) {
      this.swallowPayout -= 1;
      return 'swallowed';
    }
    if (this.garbagePayout > 0) {
      this.garbagePayout -= 1;
      return 'garbage';
    }
    return { ConversationID: conversationId, OriginatorConversationID: id, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
  }

  /** A payout is carried out now with this ResultCode; its Result is posted to ResultURL. */
  finishPayout(originatorConversationId: string, resultCode = '0'): void {
    const p = this.payments.get(originatorConversationId);
    if (!p) throw new Error(`no payout ${originatorConversationId}`);
    p.resultCode = resultCode;
    p.receipt = resultCode === '0' ? 'TK' + randomBytes(4).toString('hex').toUpperCase() : null;
    const result: Record<string, unknown> = {
      ResultType: 0,
      ResultCode: resultCode === '0' ? 0 : resultCode,
      ResultDesc: B2C_DESC[resultCode] ?? 'Unknown',
      OriginatorConversationID: p.originatorConversationId,
      ConversationID: p.conversationId,
      TransactionID: p.receipt ?? 'TKE0000000',
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: p.queueTimeOutUrl } },
    };
    if (resultCode === '0') {
      result.ResultParameters = {
        ResultParameter: [
          { Key: 'TransactionAmount', Value: p.amount },
          { Key: 'TransactionReceipt', Value: p.receipt },
          { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
          { Key: 'B2CChargesPaidAccountAvailableFunds', Value: -4510.0 },
          { Key: 'ReceiverPartyPublicName', Value: `${p.partyB} - Jane Driver` },
          { Key: 'TransactionCompletedDateTime', Value: '26.11.2026 13:27:11' },
          { Key: 'B2CUtilityAccountAvailableFunds', Value: 10116.0 },
          { Key: 'B2CWorkingAccountAvailableFunds', Value: 900000.0 },
        ],
      };
    }
    void this.postResult(p.resultUrl, { Result: result });
  }

  /** R000002 for a receipt this short code never received or an amount that is not the payment's; R000001 when reversed before. */
  private reversalCode(r: FakeReversal): string {
    const paid = this.byReceipt(r.transactionId);
    if (!paid || paid.amount !== r.amount) return 'R000002';
    const before = [...this.reversals.values()].some((x) => x.transactionId === r.transactionId && (x.resultCode === '0' || x.resultCode === null));
    return before ? 'R000001' : '0';
  }

  /** A reversal is carried out now with this ResultCode; its Result is posted to ResultURL. */
  finishReversal(originatorConversationId: string, resultCode = '0'): void {
    const r = this.reversals.get(originatorConversationId);
    if (!r) throw new Error(`no reversal ${originatorConversationId}`);
    r.resultCode = resultCode;
    r.receipt = resultCode === '0' ? 'RV' + randomBytes(4).toString('hex').toUpperCase() : null;
    const result: Record<string, unknown> = {
      ResultType: 0,
      ResultCode: resultCode === '0' ? 0 : resultCode,
      ResultDesc: REVERSAL_DESC[resultCode] ?? 'Unknown',
      OriginatorConversationID: r.originatorConversationId,
      ConversationID: r.conversationId,
      TransactionID: r.receipt ?? 'SKE0000000',
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: r.queueTimeOutUrl } },
    };
    if (resultCode === '0') {
      result.ResultParameters = {
        ResultParameter: [
          { Key: 'DebitAccountBalance', Value: 'Utility Account|KES|7722179.62|7722179.62|0.00|0.00' },
          { Key: 'Amount', Value: r.amount },
          { Key: 'TransCompletedTime', Value: 20261126132711 },
          { Key: 'OriginalTransactionID', Value: r.transactionId },
          { Key: 'Charge', Value: 0 },
          { Key: 'CreditPartyPublicName', Value: '254708374149 - John Doe' },
          { Key: 'DebitPartyPublicName', Value: `${this.o.shortCode} - PayCollect Fake` },
        ],
      };
    }
    void this.postResult(r.resultUrl, { Result: result });
  }

  private transactionStatus(b: Record<string, unknown>): string | Record<string, unknown> {
    if (b.CommandID !== 'TransactionStatusQuery') return 'CommandID';
    if (String(b.PartyA) !== this.o.shortCode && String(b.PartyA) !== this.o.b2cShortCode) return 'PartyA';
    if (String(b.IdentifierType) !== '4') return 'IdentifierType';
    if (!FakeMpesa.url(b.ResultURL)) return 'ResultURL';
    if (!FakeMpesa.url(b.QueueTimeOutURL)) return 'QueueTimeOutURL';
    const wanted = typeof b.OriginalConversationID === 'string' ? b.OriginalConversationID : null;
    const receipt = typeof b.TransactionID === 'string' ? b.TransactionID : null;
    if (!wanted && !receipt) return 'TransactionID';
    const ids = this.newIds();
    const r = [...this.reversals.values()].find((x) => x.originatorConversationId === wanted || (receipt !== null && x.receipt === receipt));
    const p = [...this.payments.values()].find((x) => x.originatorConversationId === wanted || (receipt !== null && x.receipt === receipt));
    const valid = this.initiatorValid(b);
    this.statusQueries.push({ transactionId: receipt, originalConversationId: wanted, resultUrl: String(b.ResultURL) });
    const push = receipt !== null && !r && !p ? this.byReceipt(receipt) : undefined;
    if (push) {
      this.later(this.o.answerAfterMs, () => this.postResult(String(b.ResultURL), { Result: valid ? this.paymentStatusResult(ids, push) : this.statusResult(ids, undefined, false) }));
      return { OriginatorConversationID: ids.originatorConversationId, ConversationID: ids.conversationId, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
    }
    const found = r
      ? { ...r, reasonType: 'Reversal of Payment', status: r.resultCode === null ? 'Pending' : r.resultCode === '0' ? 'Completed' : 'Failed' }
      : p
        ? { ...p, reasonType: 'Business Payment to Customer via API', status: p.resultCode === null ? 'Pending' : p.reversed ? 'Reversed' : p.resultCode === '0' ? 'Completed' : 'Failed' }
        : undefined;
    this.later(this.o.answerAfterMs, () => this.postResult(String(b.ResultURL), { Result: this.statusResult(ids, found, valid) }));
    return { OriginatorConversationID: ids.originatorConversationId, ConversationID: ids.conversationId, ResponseCode: '0', ResponseDescription: 'Accept the service request successfully.' };
  }

  /** The Result of a Transaction Status query about a customer's STK payment, found by its receipt. */
  private paymentStatusResult(ids: { originatorConversationId: string; conversationId: string }, p: FakeStkPush): Record<string, unknown> {
    const buyGoods = p.transactionType === 'CustomerBuyGoodsOnline';
    return {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: REVERSAL_DESC['0'],
      OriginatorConversationID: ids.originatorConversationId,
      ConversationID: ids.conversationId,
      TransactionID: `${p.receipt!.slice(0, 3)}0000000`,
      ResultParameters: {
        ResultParameter: [
          { Key: 'DebitPartyName', Value: `0${p.phone.slice(3)} - John Doe` },
          { Key: 'CreditPartyName', Value: `${buyGoods ? p.partyB : this.o.shortCode} - PayCollect Fake` },
          { Key: 'OriginatorConversationID', Value: `${p.merchantRequestId}-stk` },
          { Key: 'InitiatedTime', Value: 20261126102115 },
          { Key: 'CreditPartyCharges' },
          { Key: 'DebitAccountType', Value: 'MMF Account For Customer' },
          { Key: 'TransactionReason' },
          { Key: 'ReasonType', Value: buyGoods ? 'Buy Goods Online' : 'Pay Bill Online' },
          { Key: 'TransactionStatus', Value: 'Completed' },
          { Key: 'FinalisedTime', Value: 20261126102115 },
          { Key: 'Amount', Value: p.amount },
          { Key: 'ConversationID', Value: `AG_20261126_${p.checkoutRequestId.slice(-12)}` },
          { Key: 'ReceiptNo', Value: p.receipt },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'Occasion', Value: 'Refund' } },
    };
  }

  private statusResult(
    ids: { originatorConversationId: string; conversationId: string },
    r: { originatorConversationId: string; conversationId: string; amount: number; receipt: string | null; reasonType: string; status: string } | undefined,
    initiatorValid: boolean,
  ): Record<string, unknown> {
    const head = { ResultType: 0, OriginatorConversationID: ids.originatorConversationId, ConversationID: ids.conversationId, TransactionID: 'SKE0000000' };
    if (!initiatorValid) return { ...head, ResultCode: '2001', ResultDesc: REVERSAL_DESC['2001'] };
    if (!r) return { ...head, ResultCode: 'R000002', ResultDesc: REVERSAL_DESC.R000002 };
    return {
      ...head,
      ResultCode: 0,
      ResultDesc: REVERSAL_DESC['0'],
      ResultParameters: {
        ResultParameter: [
          { Key: 'DebitPartyName', Value: `${this.o.shortCode} - PayCollect Fake` },
          { Key: 'OriginatorConversationID', Value: r.originatorConversationId },
          { Key: 'InitiatedTime', Value: '20261126132700' },
          { Key: 'ReasonType', Value: r.reasonType },
          { Key: 'TransactionStatus', Value: r.status },
          { Key: 'Amount', Value: String(r.amount) },
          { Key: 'ConversationID', Value: r.conversationId },
          ...(r.receipt ? [{ Key: 'ReceiptNo', Value: r.receipt }] : []),
        ],
      },
    };
  }

  private async postResult(url: string, body: unknown): Promise<void> {
    const toDrop = this.dropResultsTo.get(url) ?? 0;
    if (toDrop > 0) {
      this.dropResultsTo.set(url, toDrop - 1);
      return;
    }
    if (this.dropResults > 0) {
      this.dropResults -= 1;
      return;
    }
    let status: number | string;
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
      status = res.status;
      await res.arrayBuffer();
    } catch (e) {
      status = (e as Error).name;
    }
    this.resultsSent.push({ url, body, status });
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
