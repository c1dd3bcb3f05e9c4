// Proves the bench's fixed-rate sender is open-loop: it sends rate x seconds requests on schedule even while
// an answer is stalled, and a stalled answer's latency counts from when it was planned to leave. The stall
// is released by what the server has seen, not by a clock, so a busy machine cannot change the outcome: a
// sender that waited for answers would never deliver the twenty requests that release the first one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openLoopPost } from '../../scripts/bench/open-loop';

it('keeps sending while an answer is stalled, and counts that stall in the latencies', async () => {
  const arrived = new Set<number>();
  let held: { res: http.ServerResponse; at: number } | undefined;
  let heldFor = 0;
  let releasedBy: 'later requests' | 'the fallback' | undefined;
  const release = (by: 'later requests' | 'the fallback') => {
    if (!held || releasedBy) return;
    releasedBy = by;
    heldFor = performance.now() - held.at;
    held.res.end('{}');
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const n = JSON.parse(body).n as number;
      arrived.add(n);
      if (n === 1) {
        held = { res, at: performance.now() };
        setTimeout(() => release('the fallback'), 20_000).unref();
      } else if (n === 7) res.writeHead(503).end();
      else res.end('{}');
      if (arrived.size > 20) release('later requests');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  try {
    const r = await openLoopPost({ url, headers: { 'content-type': 'application/json' }, makeBody: (n) => JSON.stringify({ n }), rate: 100, seconds: 1, timeoutMs: 30_000 });
    expect(r.sent).toBe(100);
    expect(arrived.size).toBe(100);
    expect(r.answered_2xx).toBe(99);
    expect(r.errors).toBe(1);
    // twenty more requests left and arrived while the first answer was still owed
    expect(releasedBy).toBe('later requests');
    // the first request was planned no later than it arrived, and answered no earlier than its release
    expect(r.latencies_ms[r.latencies_ms.length - 1]).toBeGreaterThanOrEqual(heldFor);
    expect(r.latencies_ms).toHaveLength(100);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
