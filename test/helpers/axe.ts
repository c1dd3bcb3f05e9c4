// axe-core, the accessibility engine browsers' own audits use, run in a dashboard page: the serious and
// critical violations it finds, as readable lines (test/dashboard/axe.test.ts scans every page; a page's own
// test scans it with the data only it makes).
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

// axe.source is the engine as one script; read from the package's file so the test injects exactly it.
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The serious and critical violations axe finds on the page as it is now, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated through the debugger protocol: the dashboard's Content-Security-Policy (rightly) refuses an inline script
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

