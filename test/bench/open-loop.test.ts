// Proves the bench's fixed-rate sender is open-loop: it sends rate x seconds requests on schedule even while
// the server stalls, and a stalled answer's latency counts from when it was planned to leave.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openLoopPost } from '../../scripts/bench/open-loop';

it('keeps sending on schedule while an answer is stalled, and counts that stall in the latencies', async () => {
  const arrivals: { at: number; n: number }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const n = JSON.parse(body).n as number;
      arrivals.push({ at: performance.now(), n });
      if (n === 1) setTimeout(() => res.end('{}'), 300); // the first answer stalls
      else if (n === 7) res.writeHead(503).end();
      else res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  try {
    const started = performance.now();
    const r = await openLoopPost({ url, headers: { 'content-type': 'application/json' }, makeBody: (n) => JSON.stringify({ n }), rate: 100, seconds: 1 });
    expect(r.sent).toBe(100);
    expect(r.answered_2xx).toBe(99);
    expect(r.errors).toBe(1);
    expect(new Set(arrivals.map((a) => a.n)).size).toBe(100);
    // during the first answer's 300 ms stall, the requests planned for that time still left (about 30 of them)
    expect(arrivals.filter((a) => a.at - started < 300).length).toBeGreaterThanOrEqual(20);
    expect(r.latencies_ms[r.latencies_ms.length - 1]).toBeGreaterThanOrEqual(290);
    expect(r.p50_ms).toBeLessThan(290);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
