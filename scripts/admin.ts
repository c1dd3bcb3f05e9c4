// `npm run admin -- <command> [--flag value ...]`: the operator API's set-up tasks from a shell.
// Reads the operator key from OPERATOR_API_KEY (else DATA_DIR/operator-key) and the service address
// from PAYCOLLECT_URL (default http://localhost:8080); prints the JSON answer. Exit codes: 0 success,
// 1 the service refused or could not be reached, 2 bad usage.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

type Flags = Record<string, string | boolean | string[] | undefined>;

interface Command {
  summary: string;
  flags: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; required?: boolean; help: string }>;
  request: (f: Flags) => { method: string; path: string; body?: unknown };
}

class UsageError extends Error {}

const REQUEST_TIMEOUT_MS = 30_000;

function str(f: Flags, name: string): string | undefined {
  return f[name] as string | undefined;
}

function num(f: Flags, name: string): number | undefined {
  const raw = str(f, name);
  if (raw === undefined) return undefined;
  if (!/^-?\d+(\.\d+)?$/.test(raw)) throw new UsageError(`--${name} must be a number, got "${raw}"`);
  return Number(raw);
}

function id(f: Flags, name: string): number {
  const raw = str(f, name) ?? '';
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new UsageError(`--${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** "CARD:3.5:0.30" -> { payment_method: "CARD", percent: 3.5, fixed: 0.3 } */
function fee(spec: string) {
  const m = /^([A-Z_]+):(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(spec);
  if (!m) throw new UsageError(`--fee must look like METHOD:PERCENT:FIXED (e.g. CARD:3.5:0.30), got "${spec}"`);
  return { payment_method: m[1], percent: Number(m[2]), fixed: Number(m[3]) };
}

/** "ALL" or "UG,KE" */
function traffic(raw: string | undefined): string | string[] | undefined {
  if (raw === undefined || raw === 'ALL') return raw;
  return raw.split(',').map((c) => c.trim());
}

/** Drops flags that were not given, so the service applies its defaults. */
function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const PAGING = {
  page: { type: 'string', help: 'page number, 1-based' },
  'per-page': { type: 'string', help: 'items per page (at most 100)' },
} as const;

const COMMANDS: Record<string, Command> = {
  'create-business': {
    summary: 'create a business account with its default wallet',
    flags: {
      name: { type: 'string', required: true, help: 'business name' },
      currency: { type: 'string', required: true, help: 'default wallet currency, e.g. UGX' },
      'reserve-percent': { type: 'string', help: 'rolling reserve in percent (default 0)' },
      'reserve-months': { type: 'string', help: 'months the reserve is held (default 0)' },
      'card-days': { type: 'string', help: 'card settlement days, Card T+ (default 0)' },
      'fee-bearer': { type: 'string', help: 'merchant (default) or customer' },
      fee: { type: 'string', multiple: true, help: 'METHOD:PERCENT:FIXED, repeatable (e.g. --fee CARD:3.5:0.30)' },
    },
    request: (f) => ({
      method: 'POST',
      path: '/v1/admin/businesses',
      body: compact({
        name: str(f, 'name'),
        default_currency: str(f, 'currency'),
        rolling_reserve_percent: num(f, 'reserve-percent'),
        rolling_reserve_months: num(f, 'reserve-months'),
        card_settlement_days: num(f, 'card-days'),
        fee_bearer: str(f, 'fee-bearer'),
        fees: (f.fee as string[] | undefined)?.map(fee),
      }),
    }),
  },
  'add-wallet': {
    summary: 'add a wallet to a business',
    flags: {
      business: { type: 'string', required: true, help: 'business id' },
      currency: { type: 'string', required: true, help: 'wallet currency, e.g. USD' },
      default: { type: 'boolean', help: 'make it the default wallet' },
    },
    request: (f) => ({
      method: 'POST',
      path: `/v1/admin/businesses/${id(f, 'business')}/wallets`,
      body: compact({ currency: str(f, 'currency'), is_default: f.default === true ? true : undefined }),
    }),
  },
  'add-mid': {
    summary: 'add a MID (routing terminal) to a business',
    flags: {
      business: { type: 'string', required: true, help: 'business id' },
      method: { type: 'string', required: true, help: 'MOBILE_MONEY, CARD, BANK or CRYPTO' },
      currency: { type: 'string', required: true, help: 'request currency the MID takes' },
      'service-type': { type: 'string', help: 'processor (default sandbox)' },
      'business-name': { type: 'string', help: 'name registered with the processor (default: "PayCollect merchant")' },
      traffic: { type: 'string', help: 'ALL (default) or country codes, e.g. UG,KE' },
      operator: { type: 'string', help: 'merchant operator at the processor' },
      username: { type: 'string', help: 'merchant username at the processor' },
      password: { type: 'string', help: 'merchant password at the processor (stored encrypted)' },
      rank: { type: 'string', help: 'processing rank, 1 the highest (default 1)' },
      'reject-first-time': { type: 'boolean', help: 'take only cards seen more than a year ago' },
      inactive: { type: 'boolean', help: 'create it inactive' },
      disburses: { type: 'boolean', help: 'it also pays out (refunds, disbursements) where its processor can' },
      'payouts-only': { type: 'boolean', help: 'with --disburses: it pays out and takes no payments' },
    },
    request: (f) => ({
      method: 'POST',
      path: `/v1/admin/businesses/${id(f, 'business')}/mids`,
      body: compact({
        business_name: str(f, 'business-name') ?? 'PayCollect merchant',
        service_type: str(f, 'service-type') ?? 'sandbox',
        payment_method: str(f, 'method'),
        currency: str(f, 'currency'),
        allowed_traffic: traffic(str(f, 'traffic')),
        merchant_operator: str(f, 'operator'),
        merchant_username: str(f, 'username'),
        merchant_password: str(f, 'password'),
        processing_rank: num(f, 'rank'),
        reject_first_time_depositors: f['reject-first-time'] === true ? true : undefined,
        active: f.inactive === true ? false : undefined,
        disburses: f.disburses === true ? true : undefined,
        collects: f['payouts-only'] === true ? false : undefined,
      }),
    }),
  },
  'issue-token': {
    summary: 'issue an API token (prints its secret once)',
    flags: {
      business: { type: 'string', required: true, help: 'business id' },
      email: { type: 'string', required: true, help: 'notification email' },
      'webhook-url': { type: 'string', required: true, help: 'where notifications are sent' },
      'webhook-hash': { type: 'string', required: true, help: 'webhook signing secret, at least 16 characters' },
      'email-merchant': { type: 'boolean', help: 'email the merchant about payments' },
      'email-user': { type: 'boolean', help: 'email a receipt to the paying customer' },
    },
    request: (f) => ({
      method: 'POST',
      path: `/v1/admin/businesses/${id(f, 'business')}/api-tokens`,
      body: {
        notification_email: str(f, 'email'),
        webhook_url: str(f, 'webhook-url'),
        webhook_hash: str(f, 'webhook-hash'),
        email_merchant: f['email-merchant'] === true,
        email_user: f['email-user'] === true,
      },
    }),
  },
  'set-rate': {
    summary: 'set a market rate: 1 BASE = RATE QUOTE',
    flags: {
      base: { type: 'string', required: true, help: 'currency converted from, e.g. USD' },
      quote: { type: 'string', required: true, help: 'currency converted to, e.g. UGX' },
      rate: { type: 'string', required: true, help: 'units of quote per unit of base' },
    },
    request: (f) => ({ method: 'PUT', path: '/v1/admin/fx-rates', body: { base: str(f, 'base'), quote: str(f, 'quote'), rate: num(f, 'rate') } }),
  },
  'verify-business': {
    summary: 'record the go-live verification of a business (live)',
    flags: {
      business: { type: 'string', required: true, help: 'business id' },
      note: { type: 'string', help: 'what was reviewed (the verification is recorded as the operator key)' },
    },
    request: (f) => ({
      method: 'POST',
      path: `/v1/admin/businesses/${id(f, 'business')}/verify`,
      body: compact({ note: str(f, 'note') }),
    }),
  },
  invite: {
    summary: 'email a dashboard invitation (e.g. a new operator admin when no one can sign in)',
    flags: {
      email: { type: 'string', required: true, help: "the person's email" },
      role: { type: 'string', required: true, help: 'operator_admin, operator_support, merchant_owner, merchant_developer or merchant_viewer' },
      business: { type: 'string', help: 'business id (merchant roles only)' },
    },
    request: (f) => ({
      method: 'POST',
      path: '/v1/admin/invitations',
      body: compact({ email: str(f, 'email'), role: str(f, 'role'), business_id: f.business === undefined ? undefined : id(f, 'business') }),
    }),
  },
  'list-businesses': {
    summary: 'list business accounts, newest first',
    flags: { ...PAGING },
    request: (f) => {
      const q = new URLSearchParams(compact({ page: num(f, 'page'), per_page: num(f, 'per-page') }) as Record<string, string>);
      const query = q.toString();
      return { method: 'GET', path: `/v1/admin/businesses${query ? '?' + query : ''}` };
    },
  },
};

/** The usage of one command when it is known, else of all. */
function usage(only?: string): string {
  const lines = ['usage: npm run admin -- <command> [--flag value ...]', '', 'commands:'];
  for (const [name, cmd] of Object.entries(COMMANDS)) {
    if (only && only in COMMANDS && only !== name) continue;
    lines.push(`  ${name}: ${cmd.summary}`);
    for (const [flag, spec] of Object.entries(cmd.flags)) {
      const value = spec.type === 'string' ? ' <value>' : '';
      lines.push(`      --${flag}${value}${spec.required ? ' (required)' : ''}  ${spec.help}`);
    }
  }
  lines.push('', 'environment: PAYCOLLECT_URL (default http://localhost:8080), OPERATOR_API_KEY (else DATA_DIR/operator-key)');
  return lines.join('\n');
}

function operatorKey(env: NodeJS.ProcessEnv): string {
  if (env.OPERATOR_API_KEY) return env.OPERATOR_API_KEY;
  const file = path.join(path.resolve(env.DATA_DIR || './data'), 'operator-key');
  if (!existsSync(file)) throw new UsageError(`no operator key: set OPERATOR_API_KEY or start the service once to create ${file}`);
  return readFileSync(file, 'utf8').trim();
}

function parse(argv: string[]): { cmd: Command; flags: Flags } {
  const [name, ...rest] = argv;
  const cmd = name ? COMMANDS[name] : undefined;
  if (!cmd) throw new UsageError(name ? `unknown command "${name}"` : 'no command given');
  let flags: Flags;
  try {
    const options = Object.fromEntries(Object.entries(cmd.flags).map(([k, v]) => [k, { type: v.type, multiple: v.multiple ?? false }]));
    flags = parseArgs({ args: rest, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (e) {
    throw new UsageError(`${name}: ${(e as Error).message}`);
  }
  const missing = Object.entries(cmd.flags).filter(([k, v]) => v.required && flags[k] === undefined);
  if (missing.length > 0) throw new UsageError(`${name}: missing ${missing.map(([k]) => '--' + k).join(', ')}`);
  return { cmd, flags };
}

async function main(): Promise<number> {
  let call: { method: string; path: string; body?: unknown };
  let key: string;
  try {
    const { cmd, flags } = parse(process.argv.slice(2));
    call = cmd.request(flags);
    key = operatorKey(process.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`paycollect admin: ${e.message}\n\n${usage(process.argv[2])}\n`);
    return 2;
  }
  const base = (process.env.PAYCOLLECT_URL || 'http://localhost:8080').replace(/\/+$/, '');
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(base + call.path, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (e) {
    process.stderr.write(`paycollect admin: cannot reach ${base}: ${(e as Error).message}\n`);
    return 1;
  }
  const text = await res.text();
  let out: string;
  try {
    out = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    out = text;
  }
  (res.ok ? process.stdout : process.stderr).write(out + '\n');
  return res.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`paycollect admin: ${(e as Error).message}\n`);
    process.exit(1);
  },
);
