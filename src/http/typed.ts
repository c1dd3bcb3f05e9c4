// Handlers typed by operationId from the contract's generated types (generated/*.d.ts): each handler's
// request body, path and query parameter names, and success body are the spec's, so a change to the
// spec that the code does not follow fails `tsc` (test/http/typed-handlers.test.ts shows it does).
import type { operations as AdminOperations } from '../../generated/admin-api';
import type { operations as MerchantOperations } from '../../generated/merchant-api';
import type { Handler, RequestContext } from './context';
import type { Reply } from './envelope';

export type Operations = MerchantOperations & AdminOperations;
export type OperationId = keyof Operations;

/** The JSON request body; `undefined` where the body is optional or absent. */
export type BodyOf<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** Parameters arrive as text (openapi-backend checks them, it does not convert them): the spec names them. */
type Raw<P> = [P] extends [never] ? Record<string, never> : { [K in keyof P]-?: undefined extends P[K] ? string | undefined : string };
export type PathOf<Op> = Op extends { parameters: { path: infer P } } ? Raw<P> : Record<string, never>;
export type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? Raw<Partial<NonNullable<Q>>> : Record<string, never>;

/** Every success body of the operation, one per media type. */
export type SuccessOf<Op> = Op extends { responses: { 200: { content: infer C } } } ? C[keyof C] : never;

export interface Input<Op> {
  body: BodyOf<Op>;
  path: PathOf<Op>;
  query: QueryOf<Op>;
}

export interface TypedReply<Op> {
  body: SuccessOf<Op>;
  headers?: Record<string, string>;
  /** defaults to application/json */
  contentType?: string;
  /** written a piece at a time instead of `body` */
  stream?: Reply['stream'];
}

export type OperationHandler<Id extends OperationId> = (input: Input<Operations[Id]>, ctx: RequestContext) => Promise<TypedReply<Operations[Id]>>;

export type TypedHandlers<Ids extends OperationId> = { [Id in Ids]: OperationHandler<Id> };

/** An area's handlers keyed by operationId, each typed by its operation, made into dispatcher handlers. */
export function typedHandlers<Ids extends OperationId>(handlers: TypedHandlers<Ids>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  for (const [id, run] of Object.entries(handlers) as [string, OperationHandler<OperationId>][]) {
    out[id] = (c, ctx) => {
      const input = { body: c.request.requestBody, path: c.request.params, query: c.request.query } as Input<Operations[OperationId]>;
      return run(input, ctx);
    };
  }
  return out;
}
