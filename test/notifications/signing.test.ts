// Proves the Standard Webhooks signature matches an independent verifier and the documented example.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import YAML from 'yaml';
import { signWebhook, webhookHeaders } from '../../src/notifications/signing';

const EXAMPLE = path.resolve(__dirname, '../../openapi/components/examples/CollectionNotificationCompleted.yaml');

describe('webhook signatures', () => {
  it('reproduces the signature of the documented example notification', () => {
    const example = YAML.parse(readFileSync(EXAMPLE, 'utf8'));
    const [, id, timestamp, signature] = /webhook-id: (evt_\w+)`.*webhook-timestamp: (\d+)`.*webhook-signature: (v1,[^`]+)`/s.exec(
      example.description,
    )!;
    const body = JSON.stringify(example.value);
    expect(signWebhook('kampala-books-webhook-hash-2025', id, Number(timestamp), body)).toBe(signature);
  });

  it('agrees with the standardwebhooks package for any hash, id and body', () => {
    const cases = [
      ['0123456789abcdef', 'evt_1', '{"a":1}'],
      ['hash with spaces and ünïcödé ✓', 'evt_2f6c1b9a7d4e4c0f9a3e8b5d1c7f2a64', '{"message":"Zahlung ✓"}'],
      ['x'.repeat(200), 'msg_x', '[]'],
    ];
    for (const [hash, id, body] of cases) {
      const when = new Date('2025-11-25T10:15:05Z');
      const theirs = new Webhook(Buffer.from(hash, 'utf8').toString('base64')).sign(id, when, body);
      expect(signWebhook(hash, id, when.getTime() / 1000, body)).toBe(theirs);
    }
  });

  it('builds every header of an attempt', () => {
    const h = webhookHeaders('0123456789abcdef', 'evt_1', 1764065705, '{}');
    expect(h).toEqual({
      'content-type': 'application/json',
      'user-agent': 'PayCollect-Webhooks/1',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1764065705',
      'webhook-signature': signWebhook('0123456789abcdef', 'evt_1', 1764065705, '{}'),
    });
  });
});
