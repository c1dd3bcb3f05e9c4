// Typed errors: every error answer of the API is the spec's Error schema, a union told apart by `code`.
// PayCollectError carries it so that comparing `code` narrows `data` (the field list of VALIDATION_ERROR).
import type { components } from './generated/merchant-api';

export type ApiError = components['schemas']['Error'];
export type FieldError = components['schemas']['FieldError'];
export type ErrorCode = ApiError['code'];

class PayCollectErrorBase extends Error {
  readonly code: ErrorCode;
  readonly data: ApiError['data'];

  constructor(
    /** the HTTP status */
    readonly status: number,
    /** the whole error body as the API sent it */
    readonly body: ApiError,
    /** X-Request-Id of the answer, to quote to support */
    readonly requestId: string | null,
  ) {
    super(`${body.code}: ${body.message}`);
    this.name = 'PayCollectError';
    this.code = body.code;
    this.data = body.data;
  }
}

/** One error answer; `if (e.code === 'VALIDATION_ERROR') e.data` is the list of `{ field, message }`. */
export type PayCollectError = PayCollectErrorBase & CodeAndData<ApiError>;
type CodeAndData<E> = E extends ApiError ? Pick<E, 'code' | 'data'> : never;

/** `instanceof PayCollectError` gives the narrowing type above, as the class's instances are exactly that. */
export const PayCollectError = PayCollectErrorBase as new (status: number, body: ApiError, requestId: string | null) => PayCollectError;
