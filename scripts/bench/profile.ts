// Where the service's CPU time goes: a V8 .cpuprofile (node --cpu-prof) summed by self time into parts
// (our code by folder, each dependency, Node's core, GC, idle) and the top functions.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  total_ms: number;
  parts: { part: string; ms: number; percent: number }[];
  top_functions: { fn: string; ms: number; percent: number }[];
}

/** The part of the program a frame belongs to. */
export function partOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(idle)') return 'idle (waiting for I/O)';
    if (functionName === '(garbage collector)') return 'garbage collector';
    return 'V8 / native';
  }
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1];
  // the service's own code, from its sources (tsx) or from the build (dist/, as npm start runs it)
  const ours = /\/(?:src|dist)\/([^/]+)\//.exec(url);
  if (ours) return `src/${ours[1]}`;
  if (/\/(?:src|dist)\/[^/]+$/.test(url)) return 'src';
  if (url.startsWith('node:')) return 'node core';
  return 'other';
}

/**
 * Only samples inside the window count: `window` gives its bounds as microseconds before the profile's
 * end (the process's exit), so start-up and shut-down are left out.
 */
export function summarizeProfile(file: string, window: { fromEndUs: number; toEndUs: number }, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const from = profile.endTime - window.fromEndUs;
  const to = profile.endTime - window.toEndUs;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t >= from && t <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const parts = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const f = byId.get(id)!.callFrame;
    total += us;
    const part = partOf(f.url, f.functionName);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const where = f.url ? `${f.url.replace(/^.*\/(node_modules|src)\//, '$1/').replace(/^file:\/\//, '')}:${f.lineNumber + 1}` : '';
    const fn = `${f.functionName || '(anonymous)'} ${where}`.trim();
    fns.set(fn, (fns.get(fn) ?? 0) + us);
  }
  const rows = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([k, us]) => ({ k, ms: Math.round(us / 1000), percent: Math.round((us / total) * 1000) / 10 }));
  return {
    total_ms: Math.round(total / 1000),
    parts: rows(parts).map(({ k, ms, percent }) => ({ part: k, ms, percent })),
    top_functions: rows(fns).filter((r) => !r.k.startsWith('(idle)')).slice(0, top).map(({ k, ms, percent }) => ({ fn: k, ms, percent })),
  };
}
