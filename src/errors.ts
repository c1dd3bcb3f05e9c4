// The one error catalog (docs/contract/errors.md). The spec lists the same codes (ValidationError and PlainErrorCode);
// test/errors.test.ts fails when the two differ.
// Pure, importing nothing: the dashboard's bundle takes the catalog as it is (a refusal in the role table's words).

export const ERROR_CATALOG = {
  VALIDATION_ERROR: { http: 400, message: 'The request breaks one or more rules' },
  INVALID_JSON: { http: 400, message: 'The request body is not valid JSON' },
  UNSUPPORTED_MEDIA_TYPE: { http: 400, message: 'The request body must be application/json' },
  METHOD_NOT_ALLOWED: { http: 400, message: 'This method is not supported on this path' },
  DUPLICATE_MERCHANT_REFERENCE: { http: 400, message: 'merchant_reference was already used with a different request' },
  UNSUPPORTED_CURRENCY: { http: 400, message: 'No wallet and no market rate can take this currency' },
  NO_ROUTE: { http: 400, message: 'No active MID can take this payment' },
  CARD_DECRYPTION_FAILED: { http: 400, message: 'encrypted_card could not be decrypted' },
  API_TOKEN_LIMIT: { http: 400, message: 'A business account can hold at most 2 API tokens' },
  INVALID_STATE: { http: 400, message: 'The operation is not allowed in the current state' },
  INSUFFICIENT_FUNDS: { http: 400, message: "The wallet's available balance cannot cover this refund or disbursement" },
  LIMIT_EXCEEDED: { http: 400, message: "The disbursement is above the wallet's per-disbursement or daily limit" },
  QUOTE_EXPIRED: { http: 400, message: 'The FX quote named by quote_id has expired; nothing was created. Ask for a new quote' },
  QUOTE_MISMATCH: { http: 400, message: 'The FX quote named by quote_id does not match this request; nothing was created' },
  UNAUTHORIZED: { http: 401, message: 'Authentication failed' },
  FORBIDDEN: { http: 403, message: 'Your role may not do this' },
  IP_NOT_ALLOWED: { http: 403, message: "Disbursements with this API token are accepted only from the addresses on its IP allowlist" },
  DISBURSEMENTS_FROZEN: { http: 403, message: 'Disbursements of this business are frozen; contact support' },
  CSRF_FAILED: { http: 403, message: 'X-CSRF-Token is missing or does not match the session; read it again from GET /v1/admin/session' },
  NOT_FOUND: { http: 404, message: 'The requested resource does not exist' },
  PAYLOAD_TOO_LARGE: { http: 413, message: 'The request body is larger than 64 KiB' },
  RATE_LIMITED: { http: 429, message: 'Too many requests; retry after the time in Retry-After' },
  INTERNAL_ERROR: { http: 500, message: 'Something went wrong on our side; the request changed nothing' },
  SERVICE_UNAVAILABLE: { http: 503, message: 'The service is unavailable for a moment; nothing was changed. Retry after the time in Retry-After' },
  RATE_UNAVAILABLE: {
    http: 503,
    message: 'No current market rate for this conversion; nothing was created. Retry after the time in Retry-After',
  },
  OUTCOME_UNKNOWN: {
    http: 503,
    message:
      'The database connection was lost after this change was sent, so whether it took effect is unknown. After Retry-After, send the same request again (a request-to-pay with the same merchant_reference and body is idempotent and answers the one collection), or look the record up; do not send it as a new one',
  },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export interface FieldError {
  field: string;
  message: string;
}

/** A typed, expected failure: its code picks the HTTP status; its message is safe to show. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly data: FieldError[] | Record<string, unknown> | null;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    data: FieldError[] | Record<string, unknown> | null = null,
    headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.code = code;
    this.data = data;
    this.headers = headers;
  }

  get http(): number {
    return ERROR_CATALOG[this.code].http;
  }
}

/** Seconds a caller waits before retrying while the database is unreachable (it usually returns within seconds). */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** Our outage (the database is unreachable): 503 with Retry-After, never blamed on the caller. */
export function serviceUnavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', undefined, null, { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) });
}

/** Our outage after a write of the request was sent: it may have committed. 503 with Retry-After. */
export function outcomeUnknownError(): AppError {
  return new AppError('OUTCOME_UNKNOWN', undefined, null, { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) });
}

export function validationError(fields: FieldError[]): AppError {
  return new AppError('VALIDATION_ERROR', ERROR_CATALOG.VALIDATION_ERROR.message, fields);
}

export function errorBody(code: ErrorCode, message?: string, data: unknown = null) {
  return { code, status: 'error' as const, message: message ?? ERROR_CATALOG[code].message, data };
}
