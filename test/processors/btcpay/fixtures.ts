// BTCPay Server Greenfield answers and webhooks as the server sends them, shaped after its swagger
// (btcpayserver/btcpayserver at 03345c2: swagger.template.invoices.json InvoiceData, swagger.template.webhooks.json
// WebhookInvoice*Event, ProblemDetails/ValidationProblemDetails in swagger.template.json), with our own values.
export function invoice(status: string, additionalStatus: string, o: { amount?: string; currency?: string } = {}) {
  return {
    id: 'BkQ8Hq7fRAZ3rTt9WUn2xJ',
    storeId: '9CiNzKoANXxmk5ayZngSXrHTiVvvgCrwrpFQd4m2K776',
    amount: o.amount ?? '25000.00',
    paidAmount: status === 'New' && additionalStatus === 'None' ? '0' : o.amount ?? '25000.00',
    currency: o.currency ?? 'UGX',
    type: 'Standard',
    checkoutLink: 'https://btcpay.shop.example/i/BkQ8Hq7fRAZ3rTt9WUn2xJ',
    createdTime: 1795678200,
    expirationTime: 1795680000,
    monitoringExpiration: 1795766400,
    status,
    additionalStatus,
    availableStatusesForManualMarking: ['Settled', 'Invalid'],
    archived: false,
    metadata: { orderId: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F' },
    checkout: { speedPolicy: 'MediumSpeed', paymentMethods: ['BTC-CHAIN'], expirationMinutes: 30, monitoringMinutes: 1440, paymentTolerance: 0,
      redirectURL: 'https://pay.example/pay/PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F/return?token=t0k', redirectAutomatically: true, defaultLanguage: null },
    receipt: { enabled: true, showQR: null, showPayments: null },
  };
}

export const unauthenticated = { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' };
export const badAmount = [{ path: 'amount', message: 'Amount should be greater than 0' }];

/** BTCPay serialises webhooks indented: the signature is over exactly these bytes. */
export const settledEvent = JSON.stringify(
  {
    deliveryId: 'Sw3Qm3Dyk8DcWe7aqbVRuN', webhookId: 'DgBhL7Dcc8CDVdCfBe7Spd', originalDeliveryId: 'Sw3Qm3Dyk8DcWe7aqbVRuN', isRedelivery: false,
    type: 'InvoiceSettled', timestamp: 1795678520, storeId: '9CiNzKoANXxmk5ayZngSXrHTiVvvgCrwrpFQd4m2K776', invoiceId: 'BkQ8Hq7fRAZ3rTt9WUn2xJ',
    metadata: { orderId: 'PCK7Q2M9X4T8RZ3N6P5W2Y7H3J9D4F' }, manuallyMarked: false, overPaid: false,
  },
  null,
  2,
);
