// Proves no file under src/ is over 400 lines (docs/layout.md): a larger one holds more than one flow, and is
// cut by flow (as a connector's transformers.ts, refund-transformers.ts and payout-transformers.ts are).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '..', '..', 'src');
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** Lines as `wc -l` counts them: a last line without its newline still counts. */
function lineCount(text: string): number {
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

const files = sourceFiles(SRC);

it('reads the files it measures', () => {
  // a guard against a walk that finds nothing: the limit below would then pass vacuously
  expect(files.length).toBeGreaterThan(100);
  expect(files.some((f) => path.relative(SRC, f) === 'wiring.ts')).toBe(true);
});

it(`no file under src/ is over ${MAX_LINES} lines`, () => {
  const over = files
    .map((f) => ({ file: path.relative(SRC, f), lines: lineCount(readFileSync(f, 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(over).toEqual([]);
});
