// Proves the merchant helper scripts/encrypt-card.ts as a command: key from a file, stdin or the service's URL with a token; the service decrypts what it prints.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestService } from '../helpers/service';
import type { TestService } from '../helpers/service';
import { GOOD_CARD, merchantToken, SHORT_CARD } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const SCRIPT = path.join(ROOT, 'scripts', 'encrypt-card.ts');

function run(args: string[], o: { stdin?: string; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(TSX, [SCRIPT, ...args], { env: { ...process.env, ...o.env }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(o.stdin ?? '');
  });
}

let svc: TestService;
let dir: string;
let pemFile: string;
beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(path.join(os.tmpdir(), 'encrypt-card-'));
  pemFile = path.join(dir, 'public.pem');
  writeFileSync(pemFile, await svc.services.cards.publicKeyPem());
  writeFileSync(path.join(dir, 'card.json'), JSON.stringify(GOOD_CARD, null, 2));
});
afterAll(async () => {
  await svc?.close();
});

const decrypted = async (out: string) => (await svc.services.cards.decryptCard(out.trim())).card;

it('encrypts a card file with a key file (hybrid form for a real card)', async () => {
  const res = await run(['--key', pemFile, '--card', path.join(dir, 'card.json')]);
  expect(res).toMatchObject({ code: 0, stderr: '' });
  expect(Buffer.from(res.stdout.trim(), 'base64').toString()).toContain('::');
  expect(await decrypted(res.stdout)).toEqual(GOOD_CARD);
});

it('reads the key from stdin and compacts an inline card into the plain form', async () => {
  const res = await run(['--card', JSON.stringify(SHORT_CARD, null, 2)], { stdin: await svc.services.cards.publicKeyPem() });
  expect(res.code).toBe(0);
  expect(Buffer.from(res.stdout.trim(), 'base64')).toHaveLength(256);
  expect(await decrypted(res.stdout)).toEqual(SHORT_CARD);
});

it('fetches the key from the service with an access token, the card on stdin', async () => {
  const token = await merchantToken(svc);
  const res = await run(['--key-url', `${svc.url}/v1/public-key`, '--card', '-'], { stdin: JSON.stringify(GOOD_CARD), env: { PAYCOLLECT_TOKEN: token } });
  expect(res).toMatchObject({ code: 0, stderr: '' });
  expect(await decrypted(res.stdout)).toEqual(GOOD_CARD);
});

it('fails clearly without echoing the card: bad JSON, no token, a refused token', async () => {
  const badJson = await run(['--key', pemFile, '--card', '{"card_number":"4000000000003006",']);
  expect(badJson.code).toBe(1);
  expect(badJson.stderr).toBe('encrypt-card: the card details are not valid JSON\n');
  const noToken = await run(['--key-url', `${svc.url}/v1/public-key`, '--card', path.join(dir, 'card.json')], { env: { PAYCOLLECT_TOKEN: '' } });
  expect(noToken.stderr).toMatch(/needs an access token/);
  const refused = await run(['--key-url', `${svc.url}/v1/public-key`, '--token', 'JWT a.b.c', '--card', path.join(dir, 'card.json')]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/answered 401/);
  for (const r of [badJson, noToken, refused]) expect(r.stdout + r.stderr).not.toContain('4000000000003006');
});
