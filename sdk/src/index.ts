// @paycollect/sdk: the merchant API's types and client generated from its OpenAPI document
// (openapi-typescript + openapi-fetch), and small hand-written helpers on top.
export { createPayCollect, unwrap, SANDBOX_URL, LIVE_URL } from './client';
export type { DisbursementCalls, DisbursementCreate, DisbursementQuery, DisputeAccept, DisputeCalls, DisputeEvidence, DisputeQuery, PayCollect, PayCollectOptions, PaymentLinkCalls, PaymentLinkCreate, PaymentLinkQuery, PublicKey, QuoteCalls, QuoteCreate } from './client';
export type { AccessToken } from './tokens';
export { PayCollectError } from './errors';
export type { ApiError, ErrorCode, FieldError } from './errors';
export { iterate } from './paging';
export type { Page } from './paging';
export { verifyWebhook, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS } from './webhooks';
export type { CollectionNotification, DisbursementNotification, DisputeNotification, Notification, PaymentLinkNotification, RefundNotification, VerifyOptions } from './webhooks';
export { encryptCard, PLAIN_FORM_MAX_BYTES } from './card';
export type { CardDetails } from './card';
export type { components, operations, paths, webhooks } from './generated/merchant-api';
