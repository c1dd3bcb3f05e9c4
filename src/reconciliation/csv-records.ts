// The records of a CSV file read as it arrives (RFC 4180: fields in double quotes may hold commas, line
// breaks and doubled quotes; lines end in CRLF or LF): a statement of 100,000 rows is never held whole, only
// the record being read. A UTF-8 byte-order mark before the first field is dropped (the M-Pesa portal's
// and spreadsheet programs' exports carry one). Bounded: a record longer than MAX_RECORD_CHARS, or a file
// over the caller's byte limit, is refused with the line it was on.
import { StringDecoder } from 'node:string_decoder';

export const MAX_RECORD_CHARS = 16_384;

export class CsvError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** One record: its fields and the line of the file it started on (1-based). */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** The records of `chunks` (bytes of UTF-8 text), one at a time; throws CsvError on a malformed file. */
export async function* csvRecords(chunks: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<CsvRecord> {
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let field = '';
  let fields: string[] = [];
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let start = 1;
  let first = true;
  let recordChars = 0;
  let pendingCr = false;
  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (bytes > maxBytes) throw new CsvError(line, `the file is over ${maxBytes} bytes`);
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (++recordChars > MAX_RECORD_CHARS) throw new CsvError(start, `a record is over ${MAX_RECORD_CHARS} characters`);
      if (pendingCr) {
        pendingCr = false;
        if (c === '\n') continue;
      }
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i++;
          } else if (i + 1 === text.length) {
            // a quote at a chunk's end: decided by the next chunk's first character
            quoted = false;
            afterQuote = true;
          } else {
            quoted = false;
            afterQuote = true;
          }
        } else {
          if (c === '\n') line++;
          field += c;
        }
        continue;
      }
      if (c === '"') {
        if (afterQuote) {
          // "" split across two chunks: a doubled quote inside the field
          field += '"';
          quoted = true;
          afterQuote = false;
          continue;
        }
        if (field.length > 0) throw new CsvError(line, 'a quote inside an unquoted field');
        quoted = true;
        continue;
      }
      if (c === ',') {
        fields.push(field);
        field = '';
        afterQuote = false;
        continue;
      }
      if (c === '\r' || c === '\n') {
        fields.push(field);
        const record = { fields, line: start };
        field = '';
        fields = [];
        afterQuote = false;
        recordChars = 0;
        pendingCr = c === '\r';
        line++;
        start = line;
        if (!(record.fields.length === 1 && record.fields[0] === '')) yield record;
        continue;
      }
      if (afterQuote) throw new CsvError(line, 'text after a closing quote');
      field += c;
    }
  }
  const rest = decoder.end();
  if (rest.length > 0) field += rest;
  if (quoted) throw new CsvError(start, 'a quoted field is not closed');
  if (field.length > 0 || fields.length > 0) {
    fields.push(field);
    yield { fields, line: start };
  }
}
