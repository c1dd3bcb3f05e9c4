// Proves the statement readers on the vendors' awkward parts, without a database: the CSV reader across
// chunk boundaries (a doubled quote, a CRLF and a multi-byte character split between chunks), the
// byte-order mark, quoted line breaks, a quote left open; amounts with thousands separators and signs; local
// times to UTC; M-Pesa's preamble, charges, reversals and attempts; MTN's partner report with its own zone,
// fee column and reversals; and the clear error of each bad record, naming its line.
import { csvRecords, CsvError } from '../../src/reconciliation/csv-records';
import { localTime, MpesaStatementReader, MtnPartnerReportReader, vendorAmount } from '../../src/reconciliation/statement-lines';
import type { StatementReader } from '../../src/reconciliation/statement-lines';

async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function records(text: string, size = 3) {
  const out: string[][] = [];
  for await (const r of csvRecords(chunked(text, size), 1_000_000)) out.push(r.fields);
  return out;
}

async function lines(reader: StatementReader, text: string) {
  const out = [];
  for await (const r of csvRecords(chunked(text, 7), 1_000_000)) {
    const read = reader.read(r);
    if ('line' in read) out.push(read.line);
    else out.push(read.skipped);
  }
  reader.finish();
  return out;
}

it('reads records across any chunk boundary: quotes, doubled quotes, line breaks, CRLF, a byte-order mark, UTF-8', async () => {
  const text = '\ufeffa,"b, c","say ""hi""\r\nthere"\r\nNairobi – café,,x\n\r\nlast';
  for (const size of [1, 2, 3, 5, 64]) {
    expect(await records(text, size)).toEqual([['a', 'b, c', 'say "hi"\r\nthere'], ['Nairobi – café', '', 'x'], ['last']]);
  }
});

it('refuses a quote left open, text after a closing quote, and a file over its limit, naming the line', async () => {
  await expect(records('a,b\r\n"open,c\r\n')).rejects.toThrow(new CsvError(2, 'a quoted field is not closed'));
  await expect(records('a,"b"c\r\n')).rejects.toThrow(/line 1: text after a closing quote/);
  const big = async () => {
    for await (const _ of csvRecords(chunked('x'.repeat(100), 10), 50)) void _;
  };
  await expect(big()).rejects.toThrow(/over 50 bytes/);
});

it('reads amounts with separators and signs, and local times to UTC', () => {
  expect(vendorAmount('"1,500.00"'.replace(/"/g, ''), 1, 'Paid In')).toBe(150000n);
  expect(vendorAmount('-1,234,567.5', 1, 'Withdrawn')).toBe(123456750n);
  expect(vendorAmount('1500', 1, 'Amount')).toBe(150000n);
  expect(vendorAmount('', 1, 'Amount')).toBeNull();
  expect(() => vendorAmount('1,50.00', 4, 'Paid In')).toThrow('line 4: Paid In "1,50.00" is not an amount');
  expect(() => vendorAmount('1.005', 4, 'Paid In')).toThrow(/more than 2 decimals/);
  expect(localTime('2026-11-30 08:02:11', 180, 1, 'Completion Time')).toEqual(new Date('2026-11-30T05:02:11Z'));
  expect(localTime('30-11-2026 01:00:00', 180, 1, 'Completion Time')).toEqual(new Date('2026-11-29T22:00:00Z'));
  expect(() => localTime('2026-02-30 10:00:00', 180, 9, 'Date')).toThrow('line 9: Date "2026-02-30 10:00:00" is not a time');
});

it("reads M-Pesa's statement: preamble, payments, charges, a cancelled attempt, a reversal naming its payment", async () => {
  const text = [
    'Organization Name,Test Till',
    'Short Code,174379',
    '',
    'Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,Withdrawn,Balance,Balance Confirmed,Reason Type,Other Party Info,Linked Transaction ID,A/C No.',
    'NLJ7RT61SV,2026-11-30 08:02:11,2026-11-30 08:02:05,"Pay Bill Online\nfrom 0708374149",Completed,"1,500.00",,"1,500.00",true,Pay Bill Online,0708374149 - JANE DOE,,ORD1',
    'NLJ7RT61SW,2026-11-30 08:02:11,2026-11-30 08:02:05,Pay Bill Online Charge,Completed,,-7.50,"1,492.50",true,Pay Bill Online Charge,,NLJ7RT61SV,',
    'NLJ7RT61SX,2026-11-30 09:00:00,2026-11-30 09:00:00,Pay Bill Online,Cancelled,"200.00",,"1,492.50",true,Pay Bill Online,0708374149 - JANE DOE,,ORD2',
    'NLJ7RT61SY,2026-12-01 10:00:00,2026-12-01 10:00:00,Reversal of NLJ7RT61SV,Completed,,"-1,500.00",-7.50,true,Reversal,0708374149 - JANE DOE,NLJ7RT61SV,ORD1',
  ].join('\r\n');
  expect(await lines(new MpesaStatementReader(), text)).toEqual([
    'preamble', 'preamble', 'header',
    { reference: 'NLJ7RT61SV', kind: 'payment', originalReference: null, amountMinor: 150000n, currency: 'KES', occurredAt: new Date('2026-11-30T05:02:11Z') },
    'fee', 'not_completed',
    { reference: 'NLJ7RT61SY', kind: 'reversal', originalReference: 'NLJ7RT61SV', amountMinor: 150000n, currency: 'KES', occurredAt: new Date('2026-12-01T07:00:00Z') },
  ]);
  await expect(lines(new MpesaStatementReader(), 'Organization Name,Test Till\r\n')).rejects.toThrow(/no header row starting "Receipt No\."/);
  const noLink = text.replace(',NLJ7RT61SV,ORD1', ',,ORD1');
  await expect(lines(new MpesaStatementReader(), noLink)).rejects.toThrow('line 9: a reversal without a Linked Transaction ID');
});

it("reads MTN's partner report in the partner's zone, the fee apart, a reversal named by its own id carrying its payment's", async () => {
  const text = [
    'Id,External Transaction Id,Date,Status,Type,Provider Category,From,To,Amount,Currency,Fee,Fee Currency,Balance',
    '1001,5b6f3c1e-0d3a-4d6e-9f1a-2c3b4d5e6f70,2026-11-30 10:00:00,SUCCESSFUL,DEBIT,,256772123456,PayCollect,"25,000",UGX,250,UGX,"1,000,000"',
    '1002,7c8d9e0f-1a2b-4c3d-8e9f-0a1b2c3d4e5f,2026-11-30 10:05:00,FAILED,DEBIT,,256772123457,PayCollect,"10,000",UGX,0,UGX,"1,000,000"',
    '1003,5b6f3c1e-0d3a-4d6e-9f1a-2c3b4d5e6f70,2026-12-02 09:00:00,SUCCESSFUL,REVERSAL,,PayCollect,256772123456,"25,000",UGX,0,UGX,"975,000"',
  ].join('\n');
  expect(await lines(new MtnPartnerReportReader(180), text)).toEqual([
    'header',
    { reference: '5b6f3c1e-0d3a-4d6e-9f1a-2c3b4d5e6f70', kind: 'payment', originalReference: null, amountMinor: 2500000n, currency: 'UGX', occurredAt: new Date('2026-11-30T07:00:00Z') },
    'not_completed',
    { reference: '1003', kind: 'reversal', originalReference: '5b6f3c1e-0d3a-4d6e-9f1a-2c3b4d5e6f70', amountMinor: 2500000n, currency: 'UGX', occurredAt: new Date('2026-12-02T06:00:00Z') },
  ]);
  await expect(lines(new MtnPartnerReportReader(0), 'Id,Date,Status\n')).rejects.toThrow(/the header row has no External Transaction Id, Type, Amount, Currency, Fee column/);
});

it("reads MTN's refunds and transfers as money out under our reference, a positive amount; other rows are passed over", async () => {
  const text = [
    'Id,External Transaction Id,Date,Status,Type,Provider Category,From,To,Amount,Currency,Fee,Fee Currency,Balance',
    '2001,0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,2026-11-30 11:00:00,SUCCESSFUL,REFUND,Disbursements,PayCollect,256772123456,"10,000",UGX,0,UGX,"990,000"',
    '2002,1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e,2026-11-30 12:00:00,SUCCESSFUL,TRANSFER,Disbursements,PayCollect,256772123457,"30,000",UGX,0,UGX,"960,000"',
    '2003,2c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f,2026-11-30 12:30:00,SUCCESSFUL,DISBURSEMENT,Disbursements,PayCollect,256772123458,"5,000",UGX,0,UGX,"955,000"',
    '2004,3d4e5f6a-7b8c-4d9e-9f0a-2b3c4d5e6f70,2026-11-30 13:00:00,FAILED,TRANSFER,Disbursements,PayCollect,256772123459,"7,000",UGX,0,UGX,"955,000"',
    '2005,,2026-11-30 14:00:00,SUCCESSFUL,CASH_OUT,,PayCollect,Bank,"100,000",UGX,0,UGX,"855,000"',
  ].join('\n');
  expect(await lines(new MtnPartnerReportReader(180), text)).toEqual([
    'header',
    { reference: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', kind: 'refund', originalReference: null, amountMinor: 1000000n, currency: 'UGX', occurredAt: new Date('2026-11-30T08:00:00Z') },
    { reference: '1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e', kind: 'payout', originalReference: null, amountMinor: 3000000n, currency: 'UGX', occurredAt: new Date('2026-11-30T09:00:00Z') },
    { reference: '2c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f', kind: 'payout', originalReference: null, amountMinor: 500000n, currency: 'UGX', occurredAt: new Date('2026-11-30T09:30:00Z') },
    'not_completed', 'other',
  ]);
  const noReference = text.replace('2001,0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,', '2001,,');
  await expect(lines(new MtnPartnerReportReader(180), noReference)).rejects.toThrow('line 2: a refund without an External Transaction Id');
});
