// openapi-backend's router flattens the document into its list of operations afresh on every call of
// `getOperations`, and its routing (`matchOperation`) and look-up by id (`getOperation`) call it on every
// request: a few tens of microseconds per request spent rebuilding the same list. The document never
// changes once loaded, so the list is built once, after init, and the router answers from it.
import type { OpenAPIBackend, Operation } from 'openapi-backend';

/** The router methods replaced here: if the library renames or drops one, start-up fails loudly. */
const CACHED_METHODS = ['getOperations', 'getOperation', 'matchOperation'] as const;

/**
 * Makes `api.router` answer `getOperations` from one list built now and `getOperation` from a map by id.
 * Call it after `init()` and after any change to `api.definition`. The list and its operations are frozen:
 * they are shared by every request now, so code that wrote into one would leak into the next request.
 */
export function cacheOperations(api: OpenAPIBackend): void {
  const router = api.router;
  for (const method of CACHED_METHODS) {
    if (typeof router?.[method] !== 'function') throw new Error(`openapi-backend's router has no ${method}(): the operations cache needs revisiting`);
  }
  const operations: Operation[] = router.getOperations().map((op) => {
    Object.freeze(op.parameters);
    return Object.freeze(op);
  });
  Object.freeze(operations);
  const byId = new Map<string, Operation>();
  // the library answers the first operation carrying an id; so does the map
  for (const op of operations) if (op.operationId && !byId.has(op.operationId)) byId.set(op.operationId, op);
  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
}
