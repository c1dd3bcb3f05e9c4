// Volume and success rate day by day, drawn with uPlot on a canvas, for people who would rather look than
// read. It is an image to assistive technology (its label says what it shows): it stands beside a table of
// the same numbers, which is what a screen reader or a keyboard user reads. It takes its box's width, so it
// fits a phone (390 px) as well as a desk.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface DayPoint {
  /** the UTC day, YYYY-MM-DD */
  day: string;
  volume: number;
  /** 0..1, null when nothing was final that day */
  successRate: number | null;
}

const HEIGHT = 220;
const DAY_MS = 86_400_000;

/** `days`: every UTC day of the window, oldest first (a day without payments has volume 0). */
export function DayChart({ label, currency, points }: { label: string; currency: string; points: DayPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const xs = points.map((p) => Date.parse(`${p.day}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, points.map((p) => p.volume), points.map((p) => (p.successRate === null ? null : p.successRate * 100))];
    const width = () => Math.max(240, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true, range: (_u, min, max) => [min - DAY_MS / 2000, max + DAY_MS / 2000] }, rate: { range: [0, 100] } },
        axes: [
          { stroke: '#5b6675', size: 36 },
          { stroke: '#5b6675', size: 56, values: (_u, ticks) => ticks.map((t) => t.toLocaleString('en')) },
          { scale: 'rate', side: 1, stroke: '#5b6675', size: 44, grid: { show: false }, values: (_u, ticks) => ticks.map((t) => `${t} %`) },
        ],
        series: [
          {},
          { label: `Volume (${currency})`, stroke: '#1a56db', fill: 'rgba(26, 86, 219, 0.25)', paths: uPlot.paths.bars!({ size: [0.7, 24] }), points: { show: false } },
          { label: 'Success rate', scale: 'rate', stroke: '#027a48', width: 2, spanGaps: true, points: { show: true, size: 5 } },
        ],
      },
      data,
      el,
    );
    const resized = new ResizeObserver(() => plot.setSize({ width: width(), height: HEIGHT }));
    resized.observe(el);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [points, currency]);
  return (
    <figure className="chart day-chart">
      <div ref={box} role="img" aria-label={label} />
      <figcaption className="muted small">
        {label}: bars are the completed volume in {currency} (left axis), the line the success rate (right axis); the table below holds the same numbers.
      </figcaption>
    </figure>
  );
}

/** Every UTC day from `from` (an API time) to `to` (YYYY-MM-DD), oldest first. */
export function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(from.slice(0, 10) + 'T00:00:00Z'); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
