// Proves the tests' check of every answer against the documents (test/helpers/spec.ts) passes a documented answer and
// catches the ones that break the contract: a body off its schema, an undocumented status, an error that is not the envelope,
// whether it reads documents of its own or the ones a started service loaded.
import { errorBody } from '../../src/errors';
import { checkResponse as check, specApis } from '../helpers/spec';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const REF = '/v1/collections/PC-0000000000000000';

async function expectChecks(checkResponse: typeof check): Promise<void> {
  await expect(checkResponse('GET', REF, 404, errorBody('NOT_FOUND'))).resolves.toBeUndefined();
  await expect(checkResponse('GET', REF, 200, { status: 'success', data: { gateway_reference: 7 } })).rejects.toThrow(/GET \/v1\/collections\/PC-0+ -> 200: response breaks the spec/);
  await expect(checkResponse('GET', REF, 418, errorBody('NOT_FOUND'))).rejects.toThrow(/answered with HTTP 418/);
  await expect(checkResponse('GET', REF, 404, { message: 'no' })).rejects.toThrow(/not an error envelope/);
  // the same schema checked again (now compiled) still catches what breaks it
  await expect(checkResponse('GET', REF, 200, { status: 'success', data: {} })).rejects.toThrow(/response breaks the spec/);
  await expect(checkResponse('GET', '/v1/admin/businesses', 200, { status: 'success', data: 'nothing' })).rejects.toThrow(/GET \/v1\/admin\/businesses -> 200: response breaks the spec/);
}

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

it('checks against the documents the started service loaded, and a real answer passes', async () => {
  const apis = await specApis();
  expect([apis.merchant, apis.admin]).toEqual([svc.specs?.merchant, svc.specs?.admin]);
  expect(apis.merchant).toBe(svc.specs?.merchant);
  await expectChecks(check);
  const res = await svc.admin.get('/v1/admin/businesses');
  expect(res.status).toBe(200);
});

it('checks the same with documents of its own, where no service was started', async () => {
  await jest.isolateModulesAsync(async () => {
    // a fresh copy of the checks' module, as a test file that starts no service has it
    const own = require('../helpers/spec') as { specApis: typeof specApis; checkResponse: typeof check };
    expect((await own.specApis()).merchant).not.toBe(svc.specs?.merchant);
    await expectChecks(own.checkResponse);
  });
});
