// Proves a hot .sql file becomes one constant text with positional parameters, each name once, and that binding refuses a missing or unknown name instead of writing NULL.
import path from 'node:path';
import { bound, hotSqlFile } from '../../src/db';
import type { Db } from '../../src/db';
import { START_EMAILS_CTE } from '../../src/notifications/notifications';

// read once: a second QueryFile of the same file is a pg-promise warning
const s = hotSqlFile(path.join(__dirname, '../../src/collections'), 'create.sql', { startEmails: START_EMAILS_CTE });
const config = hotSqlFile(path.join(__dirname, '../../src/merchants'), 'request-config.sql');

it('turns named parameters into $n, one number per name, in the order they first appear', () => {
  expect(s.name).toBe('collections/create.sql');
  expect(s.text).not.toMatch(/\$\{/);
  // the notifications' part (its start emails) stands where create.sql names it, its parameters numbered with the rest
  expect(s.text).toContain('INSERT INTO emails');
  expect(s.params).toContain('email_owners');
  expect(new Set(s.params).size).toBe(s.params.length);
  expect(s.params[0]).toBe('config_version');
  expect(s.text).toContain('unnest($1::bigint[], $2::int[]');
  // request_currency is used five times by the configuration read: one parameter
  const n = config.params.indexOf('request_currency') + 1;
  expect(config.params.filter((p) => p === 'request_currency')).toHaveLength(1);
  expect(config.text.split(`$${n}::text`).length - 1).toBe(5);
});

it('refuses values with a name missing or unknown, naming them', () => {
  const all = Object.fromEntries(s.params.map((p) => [p, null]));
  const db = {} as Db;
  expect(() => bound(db, s, { ...all, narration: undefined, narattion: 'x' })).toThrow(/unknown narattion/);
  const { narration: _left, ...missing } = all;
  expect(() => bound(db, s, missing)).toThrow('collections/create.sql: missing narration; unknown none');
  expect(bound(db, s, all)).toMatchObject({ name: 'collections/create.sql', text: s.text });
});

it('refuses a statement whose part was not given, rather than send its placeholder', () => {
  expect(() => hotSqlFile(path.join(__dirname, '../../src/collections'), 'move.sql')).toThrow('move.sql includes ${@credit}, which it was not given');
});
