// JSON lines to stdout. A sink can be swapped so tests can read what was logged.
//
// Standard output is written through pino's asynchronous destination (sonic-boom): a line is queued
// and written when the previous write has finished, so a busy process writes many lines per system
// call instead of blocking its event loop on one synchronous write per request. What is still queued
// is written synchronously when the process exits (process.exit, a signal handled in main.ts, the end
// of the event loop).
import { context, trace } from '@opentelemetry/api';
import pino from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogSink = (line: string) => void;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/**
 * True when every field is written by JSON.stringify exactly as `replacer` would write it (no bigint, no
 * Error, nothing nested that could hold one): such a line is stringified without the replacer, which
 * keeps JSON.stringify on its fast path (the request line of every request is one).
 */
function plainFields(fields: Record<string, unknown> | undefined): boolean {
  for (const key in fields) {
    const v = fields[key];
    if (typeof v === 'bigint' || (typeof v === 'object' && v !== null)) return false;
  }
  return true;
}

let destination: ReturnType<typeof pino.destination> | null = null;

/** Text to standard output in order with the log lines (the same asynchronous destination). */
export function writeStdout(text: string): void {
  if (!destination) {
    const dest = pino.destination({ dest: 1, sync: false });
    process.once('exit', () => dest.flushSync());
    destination = dest;
  }
  destination.write(text);
}

export function createLogger(sink: LogSink = (l) => writeStdout(l + '\n'), min: LogLevel = 'info'): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[min]) return;
    // inside a traced request or job, the line names its trace (when tracing is on)
    const span = trace.getSpan(context.active())?.spanContext();
    const traced = span ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
    const line = { time: new Date().toISOString(), level, msg, ...traced, ...fields };
    sink(plainFields(fields) ? JSON.stringify(line) : JSON.stringify(line, replacer));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
