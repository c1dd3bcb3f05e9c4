// A fake of the ECB's daily euro reference rates over real HTTP. Reproduced behaviours and their sources:
// - GET /eurofxref-daily.xml answers the document published at
//   https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml: a gesmes:Envelope (namespaces
//   http://www.gesmes.org/xml/2002-08-01 and http://www.ecb.int/vocabulary/2002-08-01/eurofxref) with a
//   gesmes:subject "Reference rates", a gesmes:Sender named "European Central Bank", and
//   <Cube><Cube time='YYYY-MM-DD'><Cube currency='USD' rate='1.0823'/>...</Cube></Cube>, attribute values in
//   single quotes as in the ECB's file; 1 EUR = rate units of currency.
// - Rates are published on TARGET business days only (ECB, "Euro foreign exchange reference rates": "usually
//   updated at around 16:00 CET every working day, except on TARGET closing days"): on a weekend or holiday the
//   same day's document is served again; `day` is what the ECB last published.
// - Not every currency is quoted every day (the ECB suspended RUB from 2 March 2022): a day may lack one.
// The fake's own switches for what can go wrong on the way: `malformed` (a document cut off mid-way), `delayMs`
// (an answer slower than the caller's deadline), and FakeServer's modes (503, reset, hang).
import type http from 'node:http';
import { FakeServer } from './web';

export interface FeedDayFixture {
  date: string;
  rates: Record<string, string>;
}

/** What both daily-feed fakes share: the day they publish, and their switches for what goes wrong. */
export abstract class FakeFeed extends FakeServer {
  malformed = false;
  delayMs = 0;
  /** requests received, answered or not */
  calls = 0;

  constructor(public day: FeedDayFixture) {
    super();
  }

  /** Waits `delayMs` before answering: slower than the caller's deadline when set so. */
  protected async slow(): Promise<void> {
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
  }
}

export class FakeEcb extends FakeFeed {

  document(): string {
    const cubes = Object.entries(this.day.rates)
      .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`)
      .join('\n');
    return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${this.day.date}'>
${cubes}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    this.calls += 1;
    if (req.method !== 'GET' || url.pathname !== '/eurofxref-daily.xml') {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not Found</body></html>');
      return;
    }
    if (!this.answerable(req, res, '<html><body>Service Unavailable</body></html>')) return;
    await this.slow();
    const doc = this.document();
    res.writeHead(200, { 'content-type': 'text/xml' }).end(this.malformed ? doc.slice(0, Math.floor(doc.length / 2)) : doc);
  }
}
