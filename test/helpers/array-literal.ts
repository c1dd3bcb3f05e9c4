// Reads back the one-dimensional array literals src/db/array-literal.ts writes (each element NULL or
// double-quoted with backslash escapes), so a test can see the values a batch statement was sent.
export function readArrayLiteral(text: string): (string | null)[] {
  if (!text.startsWith('{') || !text.endsWith('}')) throw new Error(`not an array literal: ${text.slice(0, 40)}`);
  const out: (string | null)[] = [];
  let i = 1;
  while (i < text.length - 1) {
    if (text.startsWith('NULL', i)) {
      out.push(null);
      i += 4;
    } else if (text[i] === '"') {
      let value = '';
      i += 1;
      while (text[i] !== '"') {
        if (text[i] === '\\') i += 1;
        value += text[i];
        i += 1;
      }
      out.push(value);
      i += 1;
    } else {
      throw new Error(`unexpected ${text[i]} at ${i} in an array literal`);
    }
    if (text[i] === ',') i += 1;
  }
  return out;
}
