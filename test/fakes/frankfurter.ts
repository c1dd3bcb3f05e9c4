// A fake Frankfurter API (v1) over real HTTP. Reproduced behaviours and their sources (https://frankfurter.dev,
// the API's documentation, "Latest rates"; the open-source server, github.com/lineofflight/frankfurter):
// - GET /v1/latest?base=EUR (and /latest, the unversioned path of api.frankfurter.app) answers
//   {"amount":1.0,"base":"EUR","date":"YYYY-MM-DD","rates":{"USD":1.0823,...}}: JSON numbers, the base left out
//   of `rates`. It republishes the ECB's reference rates, so `date` is the last working day's: on a weekend or
//   holiday the same date as before.
// - An unknown base is 404 {"message":"not found"}.
// The fake's own switches: `malformed` (an answer that is not the documented object), `delayMs` (slower than
// the caller's deadline), and FakeServer's modes (503, reset, hang).
import type http from 'node:http';
import { FakeFeed } from './ecb';

export class FakeFrankfurter extends FakeFeed {

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    this.calls += 1;
    if (req.method !== 'GET' || !['/v1/latest', '/latest'].includes(url.pathname)) {
      this.json(res, 404, { message: 'not found' });
      return;
    }
    if ((url.searchParams.get('base') ?? 'EUR') !== 'EUR') {
      this.json(res, 404, { message: 'not found' });
      return;
    }
    if (!this.answerable(req, res, { message: 'service unavailable' })) return;
    await this.slow();
    if (this.malformed) {
      this.json(res, 200, { base: 'EUR', date: this.day.date, rates: 'unavailable' });
      return;
    }
    // written as the API writes it: numbers, amount 1.0
    const rates = Object.entries(this.day.rates).map(([c, r]) => `"${c}":${r}`).join(',');
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"amount":1.0,"base":"EUR","date":"${this.day.date}","rates":{${rates}}}`);
  }
}
