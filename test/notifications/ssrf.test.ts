// Proves the live SSRF guard refuses webhook URLs that reach non-public addresses in every address form,
// when the URL is set and again at delivery time, and that WEBHOOK_ALLOW_PRIVATE lifts it.
import { AppError } from '../../src/errors';
import { blockedReason, guardedLookup, ipv6Groups } from '../../src/notifications/ssrf';
import { attemptsOf, createNotifyMerchant, createPendingCollection, eventually, finishCollection, notificationsOf, startReceiver } from '../helpers/notify-fixtures';
import type { Receiver } from '../helpers/notify-fixtures';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';

const REFUSED_URLS = [
  'http://127.0.0.1/hooks',
  'http://127.0.0.1:8080/hooks',
  'http://localhost/hooks',
  'http://LOCALHOST/hooks',
  'http://2130706433/hooks', // decimal 127.0.0.1
  'http://0x7f000001/hooks', // hex
  'http://0x7f.0x0.0x0.0x1/hooks', // dotted hex
  'http://0177.0.0.1/hooks', // octal
  'http://017700000001/hooks', // octal, one number
  'http://127.1/hooks', // short form
  'http://127.0.1/hooks',
  'http://10.0.0.5/hooks',
  'http://172.16.0.1/hooks',
  'http://172.31.255.255/hooks',
  'http://192.168.1.10/hooks',
  'http://169.254.169.254/latest/meta-data/', // cloud metadata
  'http://2852039166/latest/meta-data/', // 169.254.169.254 in decimal
  'http://100.64.0.1/hooks', // carrier-grade NAT
  'http://0.0.0.0/hooks',
  'http://0/hooks',
  'http://224.0.0.1/hooks', // multicast
  'http://255.255.255.255/hooks',
  'http://[::1]/hooks',
  'http://[0:0:0:0:0:0:0:1]/hooks',
  'http://[::]/hooks',
  'http://[fc00::1]/hooks', // unique-local
  'http://[fd12:3456:789a::1]/hooks',
  'http://[fe80::1]/hooks', // link-local
  'http://[ff02::1]/hooks', // multicast
  'http://[::ffff:127.0.0.1]/hooks', // IPv4-mapped
  'http://[::ffff:7f00:1]/hooks',
  'http://[::ffff:169.254.169.254]/hooks',
  'http://[::ffff:10.1.2.3]/hooks',
  'http://[64:ff9b::7f00:1]/hooks', // NAT64 of 127.0.0.1
  'http://[2002:7f00:1::]/hooks', // 6to4 of 127.0.0.1
  'http://[::127.0.0.1]/hooks', // IPv4-compatible
  'https://[::1]:8443/hooks',
];

const PUBLIC_URLS = ['http://93.184.215.14/hooks', 'https://8.8.8.8/hooks', 'http://[2606:4700:4700::1111]/hooks', 'https://1.1.1.1:8443/x'];

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.255.255.255', 'private'],
    ['172.15.255.255', null],
    ['172.16.0.0', 'private'],
    ['172.32.0.0', null],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.0', 'carrier-grade NAT'],
    ['100.128.0.0', null],
    ['0.1.2.3', 'unspecified'],
    ['239.255.255.250', 'multicast'],
    ['8.8.8.8', null],
    ['::1', 'loopback'],
    ['::', 'unspecified or IPv4-compatible'],
    ['fd00::1', 'unique-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', null],
    ['2002:c0a8:101::1', 'private'],
    ['2606:4700:4700::1111', null],
    ['not-an-ip', 'not an IP address'],
  ])('%s -> %s', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  it('expands IPv6 addresses to 8 groups', () => {
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('fe80::1%lo')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses a non-public address inside the socket lookup itself (DNS rebinding)', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('EBLOCKED');
    expect(err?.message).toMatch(/loopback/);
  });
});

describe('live', () => {
  let live: TestService;
  let receiver: Receiver;
  beforeAll(async () => {
    live = await startTestService({ env: { APP_ENV: 'live', WEBHOOK_RETRY_SCHEDULE: '0s,100ms,100ms' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await live?.close();
    await receiver?.close();
  });

  it('does not allow private addresses unless WEBHOOK_ALLOW_PRIVATE says so', () => {
    expect(live.config.webhookAllowPrivate).toBe(false);
  });

  it.each(REFUSED_URLS)('refuses %s when it is set', async (url) => {
    const err = await live.services.notifications.assertWebhookUrlAllowed(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).data).toEqual([{ field: 'webhook_url', message: expect.stringMatching(/^must reach a public address: /) }]);
  });

  it.each(PUBLIC_URLS)('accepts the public address %s', async (url) => {
    await expect(live.services.notifications.assertWebhookUrlAllowed(url)).resolves.toBeUndefined();
  });

  it('refuses a host that does not resolve', async () => {
    await expect(live.services.notifications.assertWebhookUrlAllowed('https://hooks.example.invalid/x')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      data: [{ field: 'webhook_url', message: 'host hooks.example.invalid cannot be resolved' }],
    });
  });

  it('refuses URLs that are not http(s)', async () => {
    for (const url of ['ftp://8.8.8.8/x', 'file:///etc/passwd', 'not a url', 'gopher://8.8.8.8/']) {
      await expect(live.services.notifications.assertWebhookUrlAllowed(url)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        data: [{ field: 'webhook_url', message: expect.any(String) }],
      });
    }
  });

  it('refuses delivery at send time to a URL that reaches loopback, records each attempt and retries per schedule', async () => {
    // stored without the set-time check, as if DNS had changed since
    const m = await createNotifyMerchant(live.services, { webhookUrl: receiver.url });
    const pending = await createPendingCollection(live.services, m);
    await finishCollection(live.services, pending.id);
    const n = await eventually(async () => (await notificationsOf(live.services, pending.id)).find((x) => x.gave_up_at !== null), 15_000, 'give-up');
    expect(receiver.received).toHaveLength(0);
    expect(n.delivered_at).toBeNull();
    const attempts = await attemptsOf(live.services, n.id);
    expect(attempts).toHaveLength(3);
    for (const a of attempts) {
      expect(a.http_status).toBeNull();
      expect(a.error).toBe('refused: 127.0.0.1 resolves to a loopback address (127.0.0.1)');
    }
  });

  it('refuses a host name that resolves to loopback at send time too', async () => {
    const m = await createNotifyMerchant(live.services, { webhookUrl: receiver.url.replace('127.0.0.1', 'localhost') });
    const pending = await createPendingCollection(live.services, m);
    await finishCollection(live.services, pending.id);
    const n = await eventually(async () => (await notificationsOf(live.services, pending.id)).find((x) => x.gave_up_at !== null), 15_000, 'give-up');
    expect(receiver.received).toHaveLength(0);
    expect(n.last_error).toMatch(/^refused: localhost resolves to a loopback address/);
  });
});

describe('sandbox', () => {
  let sandbox: TestService;
  beforeAll(async () => {
    sandbox = await startTestService();
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('allows private addresses by default (WEBHOOK_ALLOW_PRIVATE true)', async () => {
    expect(sandbox.config.webhookAllowPrivate).toBe(true);
    for (const url of ['http://127.0.0.1:9/hooks', 'http://localhost/hooks', 'http://[::1]/hooks', 'http://10.0.0.5/hooks']) {
      await expect(sandbox.services.notifications.assertWebhookUrlAllowed(url)).resolves.toBeUndefined();
    }
  });

  it('still refuses a URL that is not http(s)', async () => {
    await expect(sandbox.services.notifications.assertWebhookUrlAllowed('ftp://127.0.0.1/')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('live with WEBHOOK_ALLOW_PRIVATE=true', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { APP_ENV: 'live', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('lifts the guard', async () => {
    await expect(svc.services.notifications.assertWebhookUrlAllowed('http://127.0.0.1/hooks')).resolves.toBeUndefined();
  });
});
