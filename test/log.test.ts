// A log line is one JSON object whatever its fields hold: money as bigint and errors, at the top or nested.
import { createLogger } from '../src/log';

function logged(fields: Record<string, unknown>, min: 'info' | 'warn' = 'info'): Record<string, unknown>[] {
  const lines: string[] = [];
  createLogger((l) => lines.push(l), min).info('m', fields);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('log lines', () => {
  it('writes plain fields as they are, after time, level and message', () => {
    const [line] = logged({ request_id: 'r1', status: 200, duration_ms: 1.5, ok: true, none: null });
    expect(Object.keys(line)).toEqual(['time', 'level', 'msg', 'request_id', 'status', 'duration_ms', 'ok', 'none']);
    expect(line).toMatchObject({ level: 'info', msg: 'm', request_id: 'r1', status: 200, duration_ms: 1.5, ok: true, none: null });
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
  });

  it('writes bigints as decimal text, at the top and nested', () => {
    expect(logged({ amount_minor: 12345678901234567890n })[0].amount_minor).toBe('12345678901234567890');
    expect(logged({ row: { fee_minor: 5n, list: [1n, 'x'] } })[0].row).toEqual({ fee_minor: '5', list: ['1', 'x'] });
  });

  it('writes errors with their name, message and stack, at the top and nested', () => {
    const err = new TypeError('boom');
    expect(logged({ err })[0].err).toEqual({ name: 'TypeError', message: 'boom', stack: err.stack });
    expect(logged({ context: { err } })[0].context).toEqual({ err: { name: 'TypeError', message: 'boom', stack: err.stack } });
  });

  it('writes nothing below its level', () => {
    expect(logged({ a: 1 }, 'warn')).toEqual([]);
  });
});
