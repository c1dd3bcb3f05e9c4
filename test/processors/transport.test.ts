// The connectors' shared transport against real sockets: a vendor that never answers is "maybe received",
// a closed port is "surely not sent", a body cut short is no answer, and an answer is read whatever its body.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { callVendor, describeAnswer } from '../../src/processors/transport';

let server: http.Server;
let base: string;
const sockets = new Set<import('node:net').Socket>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/silent') return; // takes the request and never answers
    if (req.url === '/empty') return void res.writeHead(202).end(); // MTN's 202 with an empty body
    if (req.url === '/text') return void res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
    if (req.url === '/cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"status":');
      return void setTimeout(() => res.socket?.destroy(), 20);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, ok: true }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

it('reads a JSON answer', async () => {
  const a = await callVendor({ method: 'POST', url: `${base}/json`, headers: {}, body: '{}', timeoutMs: 5000 });
  expect(a).toEqual({ kind: 'answer', status: 200, text: '{"method":"POST","ok":true}', json: { method: 'POST', ok: true } });
});

it('an empty or non-JSON body is still an answer, with json undefined', async () => {
  expect(await callVendor({ method: 'POST', url: `${base}/empty`, headers: {}, timeoutMs: 5000 })).toEqual({ kind: 'answer', status: 202, text: '', json: undefined });
  const text = await callVendor({ method: 'GET', url: `${base}/text`, headers: {}, timeoutMs: 5000 });
  expect(text).toMatchObject({ kind: 'answer', status: 502, json: undefined });
  expect(describeAnswer(text)).toBe('HTTP 502: <html>Bad gateway</html>');
});

it('a vendor that takes the request and never answers may have received it, and the detail says it timed out', async () => {
  const a = await callVendor({ method: 'POST', url: `${base}/silent`, headers: {}, body: '{}', timeoutMs: 200 });
  expect(a).toEqual({ kind: 'no_answer', sent: true, detail: 'no answer within 200 ms' });
});

it('a closed port surely did not get the request', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const a = await callVendor({ method: 'POST', url: `http://127.0.0.1:${port}/x`, headers: {}, body: '{}', timeoutMs: 2000 });
  expect(a).toEqual({ kind: 'no_answer', sent: false, detail: 'connection failed (ECONNREFUSED)' });
});

it('an answer cut short is no answer, and may have been received', async () => {
  const a = await callVendor({ method: 'GET', url: `${base}/cut`, headers: {}, timeoutMs: 5000 });
  expect(a.kind).toBe('no_answer');
  expect(a).toMatchObject({ sent: true });
  expect(describeAnswer(a)).toMatch(/^answer 200 cut short \(/);
});
