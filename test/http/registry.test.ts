// Proves every operation of both documents has exactly one handler, and no handler is orphaned.
import { adminHandlers, merchantHandlers } from '../../src/http/handlers';
import { specApis } from '../helpers/spec';

it('has one handler per operationId', async () => {
  const { merchant, admin } = await specApis();
  const ids = (api: typeof merchant) => api.getOperations().map((o) => o.operationId).sort();
  expect(Object.keys(merchantHandlers).sort()).toEqual(ids(merchant));
  expect(Object.keys(adminHandlers).sort()).toEqual(ids(admin));
});
