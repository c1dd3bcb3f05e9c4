// The merchant's side of a direct card payment: encrypts card details into `encrypted_card` exactly as
// the specification describes (endpoint 3), with the SDK's encryptCard (sdk/src/card.ts, node:crypto only).
//
//   npx tsx scripts/encrypt-card.ts --key public.pem --card card.json
//   PAYCOLLECT_TOKEN="JWT eyJ..." npx tsx scripts/encrypt-card.ts --key-url https://host/v1/public-key --card card.json
//   npx tsx scripts/encrypt-card.ts --key public.pem --card -        (card JSON on stdin)
//   curl ... /v1/public-key | npx tsx scripts/encrypt-card.ts --card card.json   (key on stdin)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { encryptCard } from '../sdk/src/card';

export { encryptCard, PLAIN_FORM_MAX_BYTES } from '../sdk/src/card';

const FETCH_TIMEOUT_MS = 10_000;

function readStdin(): string {
  return readFileSync(0, 'utf8');
}

/** "-" = stdin; text starting with "{" = inline JSON; anything else = a file path. */
function readCard(arg: string): string {
  if (arg === '-') return readStdin();
  if (arg.trimStart().startsWith('{')) return arg;
  return readFileSync(arg, 'utf8');
}

/** Compact JSON (smaller, so more cards fit the plain form); the parser's message could quote card data. */
function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    throw new Error('the card details are not valid JSON');
  }
}

async function fetchKey(url: string, token: string | undefined): Promise<string> {
  if (!token) throw new Error('--key-url needs an access token: --token "JWT ..." or PAYCOLLECT_TOKEN');
  const authorization = token.startsWith('JWT ') ? token : `JWT ${token}`;
  const res = await fetch(url, { headers: { authorization }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

const USAGE = `usage: encrypt-card --card <file | '{json}' | -> [--key <file | -> | --key-url <url> [--token "JWT ..."]]
  The public key is read from --key, fetched from --key-url (token from --token or PAYCOLLECT_TOKEN),
  or read from stdin. The card JSON is compacted; its UTF-8 size picks the plain or hybrid form.
  Prints encrypted_card. Prefer a file or stdin for the card: command lines end up in shell history.`;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { key: { type: 'string' }, 'key-url': { type: 'string' }, token: { type: 'string' }, card: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || !values.card) {
    process.stderr.write(USAGE + '\n');
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  if (values.card === '-' && (values.key === undefined || values.key === '-') && !values['key-url']) {
    throw new Error('only one of --key and --card can come from stdin');
  }
  const pem = values['key-url']
    ? await fetchKey(values['key-url'], values.token ?? process.env.PAYCOLLECT_TOKEN)
    : values.key && values.key !== '-'
      ? readFileSync(values.key, 'utf8')
      : readStdin();
  process.stdout.write(encryptCard(pem, compactJson(readCard(values.card))) + '\n');
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e: Error) => {
    process.stderr.write(`encrypt-card: ${e.message}\n`);
    process.exitCode = 1;
  });
}
