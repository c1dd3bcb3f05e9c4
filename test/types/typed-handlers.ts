// Type-level proof, checked by `tsc --noEmit` (npm test): a handler that stops matching its operation in the
// generated contract types fails to compile. Each `@ts-expect-error` below must find an error, or tsc fails.
import { accepted, ok } from '../../src/http/envelope';
import { typedHandlers } from '../../src/http/typed';
import { toRecord } from '../../src/api-records/collection';
import type { CollectionRow } from '../../src/domain/collection';

declare const row: CollectionRow;

export const matching = typedHandlers({
  getCollection: async ({ path }) => ok({ ...toRecord({ ...row, gateway_reference: path.gateway_reference }), refunds: [] }, 'Collection retrieved'),
  requestToPay: async ({ body }) => accepted({ ...toRecord(row), merchant_reference: body.merchant_reference }, 'accepted'),
});

export const wrongReply = typedHandlers({
  // @ts-expect-error the record lacks the spec's required fields
  getCollection: async () => ok({ id: '1', transaction_status: 'PENDING' }, 'Collection retrieved'),
});

export const withoutRefunds = typedHandlers({
  // @ts-expect-error a single collection read shows its refunds in short; the plain record (of lists) has none
  getCollection: async () => ok(toRecord(row), 'Collection retrieved'),
});

export const wrongStatusWord = typedHandlers({
  // @ts-expect-error requestToPay answers `accepted`, not `success`
  requestToPay: async () => ok(toRecord(row), 'Collection request accepted'),
});

export const wrongField = typedHandlers({
  // @ts-expect-error a field of the record renamed in the code (amount instead of request_amount)
  getCollection: async () => ok({ ...toRecord(row), refunds: [], request_amount: undefined, amount: 1 }, 'Collection retrieved'),
});

export const wrongParameter = typedHandlers({
  // @ts-expect-error the path parameter is gateway_reference, not reference
  getCollection: async ({ path }) => ok({ ...toRecord({ ...row, gateway_reference: path.reference }), refunds: [] }, 'Collection retrieved'),
});

export const wrongBody = typedHandlers({
  requestToPay: async ({ body }) => {
    // @ts-expect-error encrypted_card exists only in the CARD form of the request
    const card: string | undefined = body.encrypted_card;
    return accepted({ ...toRecord(row), account_name: card ?? null }, 'accepted');
  },
});

export const cardForm = typedHandlers({
  requestToPay: async ({ body }) => {
    // narrowed by the discriminator: the CARD form has redirect_url, account_name and account_email for sure
    const url: string = body.payment_method === 'CARD' ? body.redirect_url : '';
    return accepted({ ...toRecord(row), account_email: url }, 'accepted');
  },
});

export const unknownOperation = typedHandlers({
  // @ts-expect-error no operation has this id
  getCollections: async () => ok([], 'x'),
});

export const wrongCallbackParameter = typedHandlers({
  receiveProcessorCallback: async ({ path }) => {
    // @ts-expect-error the callback's path parameter is callback_token, not token
    const token: string = path.token;
    return ok(null, `Callback received ${token}`);
  },
});

export const wrongCredentialCheck = typedHandlers({
  // @ts-expect-error a credential check answers its result, not null
  checkMidCredentials: async () => ok(null, 'Credentials checked'),
});
