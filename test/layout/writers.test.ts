// Proves one writer per shared table (docs/layout.md): every statement under src/ (the .sql files and the SQL written inline in the code) that inserts into, updates or deletes from journals, postings, ledger_accounts, notifications, emails, audit_log, fx_rates, fx_quotes, payment_links or payment_link_attempts lives in the wing that owns the table; any other wing asks the owner.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '..', '..', 'src');
/** Each shared table and the one wing that writes it. */
const OWNER: Record<string, string> = {
  journals: 'ledger',
  postings: 'ledger',
  ledger_accounts: 'ledger',
  notifications: 'notifications',
  emails: 'notifications',
  audit_log: 'people',
  fx_rates: 'rates',
  fx_quotes: 'merchants',
  payment_links: 'payment-links',
  payment_link_attempts: 'payment-links',
};
const WRITE = new RegExp(String.raw`\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(${Object.keys(OWNER).join('|')})\b`, 'gi');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.(ts|sql)$/.test(e.name) ? [full] : [];
  });
}

/** A file's SQL: a .sql file without its comments; in code, the text of its string and template literals. */
function statementsOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.sql')) return text.replace(/--.*$/gm, '');
  return [...text.matchAll(/`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g)].map((m) => m[0]).join('\n');
}

// a migration rewrites landed rows once, as the schema changes; it is not a writer the running service has
const writes = files(SRC).filter((file) => !file.includes(`${path.sep}db${path.sep}migrations${path.sep}`)).flatMap((file) => {
  const wing = path.relative(SRC, file).split(path.sep)[0];
  return [...statementsOf(file).matchAll(WRITE)].map((m) => ({ file: path.relative(SRC, file), wing, table: m[1].toLowerCase() }));
});

it('reads the writes it checks', () => {
  // a guard against a pattern that matches nothing: the rule below would then hold vacuously
  for (const table of Object.keys(OWNER)) expect(writes.some((w) => w.table === table)).toBe(true);
});

it('finds every write of a shared table in the wing that owns it', () => {
  const elsewhere = writes.filter((w) => OWNER[w.table] !== w.wing).map((w) => `${w.file} writes ${w.table} (owned by ${OWNER[w.table]}/)`);
  expect(elsewhere).toEqual([]);
});

it('sees a write from another wing, in a .sql file and inline', () => {
  // the check's own eyes: the statements a refunds file used to hold are found, and found out of place
  const sample = "INSERT INTO journals (refund_id, kind) VALUES ($1, $2); `UPDATE emails SET sent_at = $1`";
  expect([...sample.matchAll(WRITE)].map((m) => OWNER[m[1].toLowerCase()])).toEqual(['ledger', 'notifications']);
});
