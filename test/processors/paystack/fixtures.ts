// Paystack answers as the vendor sends them, shaped after the documented samples (PaystackOSS/doc-code-snippets
// at 94af513: src/api/transactions/{initialize,verify}/response.json, src/api/charges/create/response.json,
// src/doc/payments/payment-methods/qr-event; PaystackOSS/openapi at 9678dea: TransactionInitializeBadRequestModel,
// responses/Unauthorized, responses/NotFound), with our own references and amounts.
export const initializeOk = {
  status: true,
  message: 'Authorization URL created',
  data: { authorization_url: 'https://checkout.paystack.com/0peioxfhpn6zz2n', access_code: '0peioxfhpn6zz2n', reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F' },
};

export const duplicateReference = {
  status: false,
  message: 'Duplicate Transaction Reference',
  meta: { nextStep: 'Try and create the Transaction or Charge with a new reference' },
  type: 'validation_error',
  code: 'duplicate_reference',
  errorCodeMappingNotFound: false,
};

export const invalidKey = { status: false, message: 'Invalid key' };
export const notFound = { status: false, message: 'Transaction reference not found' };

function transaction(status: string, gatewayResponse: string, amount = 2_500_000, currency = 'NGN') {
  return {
    id: 4099260516,
    domain: 'test',
    status,
    reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F',
    receipt_number: null,
    amount,
    message: null,
    gateway_response: gatewayResponse,
    paid_at: status === 'success' ? '2026-11-26T07:15:02.000Z' : null,
    created_at: '2026-11-26T07:14:24.000Z',
    channel: 'card',
    currency,
    ip_address: '197.210.54.33',
    metadata: '',
    log: null,
    fees: 47500,
    fees_split: null,
    authorization: {
      authorization_code: 'AUTH_uh8bcl3zbn', bin: '408408', last4: '4081', exp_month: '12', exp_year: '2030', channel: 'card',
      card_type: 'visa ', bank: 'TEST BANK', country_code: 'NG', brand: 'visa', reusable: true, signature: 'SIG_yEXu7dLBeqG0kU7g95Ke', account_name: null,
    },
    customer: {
      id: 181873746, first_name: null, last_name: null, email: 'jane@shop.example', customer_code: 'CUS_1rkzaqsv4rrhqo6', phone: null,
      metadata: null, risk_action: 'default', international_format_phone: null,
    },
    plan: null,
    split: {},
    order_id: null,
    paidAt: status === 'success' ? '2026-11-26T07:15:02.000Z' : null,
    createdAt: '2026-11-26T07:14:24.000Z',
    requested_amount: amount,
    pos_transaction_data: null,
    source: null,
    fees_breakdown: null,
    connect: null,
    transaction_date: '2026-11-26T07:14:24.000Z',
    plan_object: {},
    subaccount: {},
  };
}

export const verifySuccess = { status: true, message: 'Verification successful', data: transaction('success', 'Successful') };
export const verifyAbandoned = { status: true, message: 'Verification successful', data: transaction('abandoned', 'The transaction was not completed') };
export const verifyFailed = { status: true, message: 'Verification successful', data: transaction('failed', 'Declined') };
export const verifyOtherAmount = { status: true, message: 'Verification successful', data: transaction('success', 'Successful', 2_000_000) };

export const chargeOpenUrl = {
  status: true,
  message: 'Charge attempted',
  data: { reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F', url: 'https://standard.paystack.co/close/3ds/xyz', status: 'open_url' },
};
export const chargeSendPin = { status: true, message: 'Charge attempted', data: { reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F', status: 'send_pin' } };
export const chargePending = { status: true, message: 'Reference check successful', data: { reference: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F', status: 'pending' } };
export const chargeSuccess = { status: true, message: 'Charge attempted', data: transaction('success', 'Successful') };
export const chargeNoEmail = { status: false, message: 'Email address is required for association with card' };

export const chargeSuccessEvent = { event: 'charge.success', data: transaction('success', 'Payment successful') };
