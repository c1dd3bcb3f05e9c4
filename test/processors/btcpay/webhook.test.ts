// Proves a BTCPay webhook is read only when signed with the MID's secret and about the MID's own store: a correctly signed one naming another store names no payment.
import { btcpayProcessor } from '../../../src/processors/btcpay';
import { signature } from '../../../src/processors/btcpay/transformers';

const credentials = { server_url: 'https://btcpay.example', store_id: 'StoreOfThisMid', api_key: 'key', webhook_secret: 'whsec-of-this-mid' };
const processor = btcpayProcessor({ timeoutMs: 1000 });

function delivery(body: Record<string, unknown>, secret = credentials.webhook_secret) {
  const raw = Buffer.from(JSON.stringify(body));
  const header = signature(raw, secret);
  return processor.checkout.webhook({ midId: 7, credentials }, raw, (name) => (name === 'btcpay-sig' ? header : undefined));
}

const settled = (storeId: string) => ({ type: 'InvoiceSettled', storeId, invoiceId: 'Inv123', metadata: { orderId: 'PC20261126ABC' } });

it('names the invoice and our reference when signed and about this store', () => {
  expect(delivery(settled('StoreOfThisMid'))).toEqual({ gatewayReference: 'PC20261126ABC', vendorReference: 'Inv123' });
});

it('names no payment when correctly signed but about another store (one secret may serve several stores)', () => {
  expect(delivery(settled('AnotherStore'))).toEqual({ gatewayReference: null, vendorReference: null });
});

it('refuses a delivery signed with another secret', () => {
  expect(delivery(settled('StoreOfThisMid'), 'whsec-of-someone-else')).toBeNull();
});
