// Proves the readers of the feeds' documents: the ECB's eurofxref-daily.xml (single or double quotes, EUR left out) and Frankfurter's latest answer, and that anything else is unreadable with a reason rather than a wrong rate.
import { readEcbDaily, readFrankfurterLatest } from '../../src/rates/transformers';
import { FakeEcb } from '../fakes/ecb';

const published = new FakeEcb({ date: '2026-11-30', rates: { USD: '1.0823', JPY: '162.49', KES: '140.5' } }).document();

describe('readEcbDaily', () => {
  it('reads the published form', () => {
    expect(readEcbDaily(published)).toEqual({ kind: 'day', day: { date: '2026-11-30', rates: { USD: '1.0823', JPY: '162.49', KES: '140.5' } } });
  });

  it('reads double quotes too', () => {
    expect(readEcbDaily(published.replace(/'/g, '"'))).toMatchObject({ kind: 'day', day: { date: '2026-11-30' } });
  });

  it.each([
    ['a cut-off document', published.slice(0, 300), 'not a gesmes:Envelope document'],
    ['an HTML error page', '<html><body>Service Unavailable</body></html>', 'not a gesmes:Envelope document'],
    ['no day', published.replace(/<Cube time='[^']*'>[\s\S]*?<\/Cube>/, ''), '0 Cube elements with a time: expected one'],
    ['a bad date', published.replace('2026-11-30', '30/11/2026'), 'reference date "30/11/2026" is not YYYY-MM-DD'],
    ['a rate in exponent form', published.replace("'162.49'", "'1.6249E2'"), 'rate "1.6249E2" of JPY is not a positive decimal of at most 12 decimals'],
    ['a zero rate', published.replace("'140.5'", "'0.0'"), 'rate "0.0" of KES is not a positive decimal of at most 12 decimals'],
    ['a lower-case currency', published.replace("'USD'", "'usd'"), 'currency "usd" is not a 3-letter code'],
    ['no rates', published.replace(/\t*<Cube currency[^>]*\/>\n?/g, ''), 'no rates in the document'],
  ])('refuses %s', (_what, xml, reason) => {
    expect(readEcbDaily(xml)).toEqual({ kind: 'unreadable', reason });
  });
});

describe('readFrankfurterLatest', () => {
  it('reads the published form, leaving EUR out', () => {
    const json = JSON.parse('{"amount":1.0,"base":"EUR","date":"2026-11-30","rates":{"EUR":1,"USD":1.0823,"JPY":162.49}}');
    expect(readFrankfurterLatest(json)).toEqual({ kind: 'day', day: { date: '2026-11-30', rates: { USD: '1.0823', JPY: '162.49' } } });
  });

  it.each([
    ['no JSON', undefined, 'not a JSON object'],
    ['another base', { amount: 1, base: 'USD', date: '2026-11-30', rates: { EUR: 0.92 } }, 'base is "USD", not EUR'],
    ['another amount', { amount: 10, base: 'EUR', date: '2026-11-30', rates: { USD: 10.8 } }, 'amount is 10, not 1'],
    ['rates not an object', { amount: 1, base: 'EUR', date: '2026-11-30', rates: 'unavailable' }, 'no rates object'],
    ['a rate as text', { amount: 1, base: 'EUR', date: '2026-11-30', rates: { USD: '1.08' } }, 'rate of USD is not a number'],
    ['a tiny rate printed with an exponent', { amount: 1, base: 'EUR', date: '2026-11-30', rates: { BTC: 1e-7 } }, 'rate "1e-7" of BTC is not a positive decimal of at most 12 decimals'],
  ])('refuses %s', (_what, json, reason) => {
    expect(readFrankfurterLatest(json)).toEqual({ kind: 'unreadable', reason });
  });
});
