// Proves the code cites only what a clone holds: no file cites the decision or stack notes kept outside the repository, every docs/ page cited exists, and every source file a docs page names exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
/** Where code and its comments live; README.md and docs/ are held to the same rule. */
const SCANNED = ['src', 'test', 'scripts', 'sdk', 'dashboard/src', 'openapi', 'docs', 'README.md'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

// Each pattern is written so that its own source text does not match it, so this file scans itself too.
const OUTSIDE = [
  { why: 'cites the decision document kept outside the repository', re: /\bCONTRACT(?:\.md\b|\s+(?:section\s+)?\d)/g },
  { why: 'cites the stack notes kept outside the repository', re: /\bSTACK-NOTE[S]\b/g },
  { why: 'cites the specification kept outside the repository', re: /\bservice-spec\.md\b/g },
];
const RELATIVE_SHARED = /(?:\.\.\/)+shared\b/g;
const DOCS_PATH = /\bdocs\/[\w./-]*?\.md\b/g;
const MARKDOWN_LINK = /\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g;
/** A source file a docs page names, as `src/domain/money.ts`: it must still be there after code moves. */
const SOURCE_PATH = /`((?:src|scripts|sdk|test|openapi|dashboard)\/[\w./-]+\.(?:ts|tsx|sql|yaml))`/g;

export interface Finding {
  file: string;
  line: number;
  problem: string;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** What is wrong with one file's text; `file` is relative to the repository root (forward slashes). */
export function findingsIn(file: string, text: string, exists: (repoPath: string) => boolean): Finding[] {
  const out: Finding[] = [];
  const add = (index: number, problem: string) => out.push({ file, line: lineOf(text, index), problem });
  for (const { why, re } of OUTSIDE) for (const m of text.matchAll(re)) add(m.index, `${why}: "${m[0]}"`);
  const dir = path.posix.dirname(file);
  for (const m of text.matchAll(RELATIVE_SHARED)) {
    // dashboard/src has a folder of shared components; a path that leaves the repository is never that
    const target = path.posix.normalize(path.posix.join(dir, m[0]));
    if (target.startsWith('..') || !exists(target)) add(m.index, `"${m[0]}" leads outside the repository or nowhere`);
  }
  for (const m of text.matchAll(DOCS_PATH)) {
    // a path such as "../docs/x.md" in a markdown page is relative, checked below
    if (text[m.index - 1] === '/' || text[m.index - 1] === '.') continue;
    if (!exists(m[0])) add(m.index, `cites ${m[0]}, which does not exist`);
  }
  if (file.startsWith('docs/') && file.endsWith('.md')) {
    for (const m of text.matchAll(SOURCE_PATH)) if (!exists(m[1])) add(m.index, `names ${m[1]}, which does not exist`);
  }
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(MARKDOWN_LINK)) {
      if (/^[a-z]+:/i.test(m[1])) continue;
      const target = path.posix.normalize(path.posix.join(dir, m[1]));
      if (target.startsWith('..') || !exists(target)) add(m.index, `links to ${m[1]}, which does not exist`);
    }
  }
  return out;
}

function filesUnder(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : filesUnder(`${rel}/${e.name}`);
    return e.isFile() ? [`${rel}/${e.name}`] : [];
  });
}

const onDisk = (repoPath: string) => existsSync(path.join(ROOT, repoPath));

describe('the scanner', () => {
  // built at run time, so that this file holds no citation itself
  const outside = ['CONTRACT', 'md'].join('.');
  const notes = ['STACK', 'NOTES'].join('-');
  const bySection = ['CONTRACT', '4.4'].join(' ');
  const spec = ['service-spec', 'md'].join('.');
  const here = new Set(['docs/contract/money.md', 'dashboard/src/pages/shared']);
  const exists = (p: string) => here.has(p);

  it('finds a citation of each outside document, by name or by section, with its line', () => {
    const text = `// ok\n// rounding (${outside} section 5)\n/* see ${bySection} */\n// (${notes}: one session)\n// spec: ${spec}\n`;
    expect(findingsIn('src/domain/x.ts', text, exists).map((f) => f.line)).toEqual([2, 3, 4, 5]);
  });

  it('refuses a relative path to the shared folder that leaves the repository, accepts the dashboard folder of that name', () => {
    const leaving = `// read ${'..'}/shared/spec first\n`;
    expect(findingsIn('src/x.ts', leaving, exists)).toEqual([{ file: 'src/x.ts', line: 1, problem: expect.stringContaining('outside the repository') }]);
    const importing = `import { People } from '${'..'}/shared/People';\n`;
    expect(findingsIn('dashboard/src/pages/operator/routes.tsx', importing, exists)).toEqual([]);
  });

  it('refuses a docs page that does not exist, in a comment and in a markdown link, and a source file a docs page names that is gone', () => {
    expect(findingsIn('src/x.ts', `// ${'docs'}/contract/money.md and ${'docs'}/contract/nowhere.md\n`, exists)).toEqual([
      { file: 'src/x.ts', line: 1, problem: expect.stringContaining('nowhere.md') },
    ]);
    expect(findingsIn('docs/contract/states.md', 'see [money](money.md) and [gone](gone.md#top)\n', exists)).toEqual([
      { file: 'docs/contract/states.md', line: 1, problem: expect.stringContaining('gone.md') },
    ]);
    expect(findingsIn('docs/contract/money.md', 'rounding: `src/domain/money.ts`\nfees: `src/domain/moved.ts`\n', (p) => p === 'src/domain/money.ts')).toEqual([
      { file: 'docs/contract/money.md', line: 2, problem: expect.stringContaining('src/domain/moved.ts') },
    ]);
  });
});

it('no file cites a document outside the repository; every docs page cited and every source file a docs page names exists', () => {
  const files = SCANNED.flatMap(filesUnder);
  expect(files.length).toBeGreaterThan(100);
  const findings = files.flatMap((file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    return text.includes('\0') ? [] : findingsIn(file, text, onDisk);
  });
  expect(findings.map((f) => `${f.file}:${f.line}: ${f.problem}`)).toEqual([]);
});
