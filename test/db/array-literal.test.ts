// Proves arrayLiteral's text reads back in PostgreSQL as the same array the driver's own serialisation of
// the values makes, for every kind of element create.sql sends (quotes, backslashes, braces, commas, NULL,
// text that reads "NULL", JSON, bigints, booleans, timestamps), and that it refuses what it cannot write.
import { arrayLiteral } from '../../src/db/array-literal';
import type { Database } from '../../src/db';
import { freshDatabase } from '../helpers/db';
import { readArrayLiteral } from '../helpers/array-literal';

let database: Database;
beforeAll(async () => {
  database = await freshDatabase({ empty: true });
});
afterAll(() => database.close());

/** The array PostgreSQL reads from our literal and from the driver's array, as text, both. */
async function bothWays(type: string, values: unknown[]): Promise<{ ours: string; drivers: string; same: boolean }> {
  return database.db.one(`SELECT $1::${type}[]::text AS ours, $2::${type}[]::text AS drivers, $1::${type}[] IS NOT DISTINCT FROM $2::${type}[] AS same`, [
    arrayLiteral(values),
    values,
  ]);
}

describe('arrayLiteral', () => {
  it('reads back as the driver’s array for text of every awkward kind', async () => {
    const text = ['plain', 'with "quotes"', 'back\\slash', 'both \\"', '{braces}', 'a,b', ' spaced ', '', 'NULL', null, 'ünïcødé ✓', 'new\nline'];
    const r = await bothWays('text', text);
    expect(r.same).toBe(true);
    const back = await database.db.one<{ a: (string | null)[] }>('SELECT $1::text[] AS a', [arrayLiteral(text)]);
    expect(back.a).toEqual(text);
    expect(readArrayLiteral(arrayLiteral(text))).toEqual(text);
  });

  it('reads back as the driver’s array for numbers, bigints, booleans, JSON and timestamps', async () => {
    expect(await bothWays('bigint', [1n, -9223372036854775808n, 9223372036854775807n, null, 0n])).toMatchObject({ same: true });
    expect(await bothWays('int', [1, 2, null, -3])).toMatchObject({ same: true });
    expect(await bothWays('numeric', ['3700.123456', null, '1'])).toMatchObject({ same: true });
    expect(await bothWays('boolean', [true, false, null])).toMatchObject({ same: true });
    expect(await bothWays('char(3)', ['UGX', 'USD', null])).toMatchObject({ same: true });
    const json = [JSON.stringify([{ step: '1', description: 'Dial *165# and "approve" \\ it' }]), null, JSON.stringify({ mid_id: 3, rank: 1 })];
    expect(await bothWays('jsonb', json)).toMatchObject({ same: true });
    const times = [new Date('2026-11-27T14:00:00.123Z'), null, new Date('1999-12-31T23:59:59.999Z')];
    expect(await bothWays('timestamptz', times)).toMatchObject({ same: true });
  });

  it('writes an empty array, and a batch of one as one element', () => {
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['x'])).toBe('{"x"}');
    expect(arrayLiteral([null, undefined])).toBe('{NULL,NULL}');
  });

  it('refuses an element it cannot write instead of sending something else', () => {
    expect(() => arrayLiteral([{ a: 1 }])).toThrow(TypeError);
    expect(() => arrayLiteral([Symbol('s')])).toThrow(TypeError);
    expect(() => arrayLiteral([Buffer.from('x')])).toThrow(TypeError);
  });
});
