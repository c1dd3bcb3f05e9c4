// A horizontal bar chart drawn as SVG, for people who would rather look than read. It is an image to
// assistive technology (its label says what it shows): every chart stands beside a table of the same
// numbers, which is what a screen reader or a keyboard user reads.
export interface Bar {
  label: string;
  value: number;
  /** the bar's number as written (a count, a percentage) */
  text: string;
}

const ROW = 28;
const LABEL_WIDTH = 130;
const WIDTH = 420;

export function BarChart({ label, bars, max }: { label: string; bars: Bar[]; max?: number }) {
  const top = max ?? Math.max(1, ...bars.map((b) => b.value));
  // the longest bar still leaves room for its number after it (about 7.5 px a character at 12 px), so no label is cut off
  const textRoom = 6 + Math.ceil(7.5 * Math.max(0, ...bars.map((b) => b.text.length)));
  const room = Math.max(40, WIDTH - LABEL_WIDTH - textRoom);
  return (
    <figure className="chart">
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${bars.length * ROW + 4}`} width="100%" preserveAspectRatio="xMinYMin meet">
        {bars.map((b, i) => {
          const y = i * ROW + 4;
          const w = Math.max(b.value > 0 ? 2 : 0, (b.value / top) * room);
          return (
            <g key={b.label}>
              <text x={0} y={y + 15} className="chart-label">
                {b.label}
              </text>
              <rect x={LABEL_WIDTH} y={y + 2} width={w} height={18} rx={3} className="chart-bar" />
              <text x={LABEL_WIDTH + w + 6} y={y + 15} className="chart-value">
                {b.text}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="muted small">{label}; the table below holds the same numbers.</figcaption>
    </figure>
  );
}
