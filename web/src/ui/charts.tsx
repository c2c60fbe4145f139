/** Plain SVG charts: no library, no inline style (the CSP allows none), colours from the stylesheet's classes. */

export interface Series {
  key: string;
  label: string;
}

/** Grouped bars per day, one bar per series; a table beside it carries the same figures for screen readers. */
export function BarChart({ title, days, series, rows }: { title: string; days: string[]; series: Series[]; rows: Record<string, number | null>[] }) {
  const W = 640;
  const H = 200;
  const pad = 28;
  const max = Math.max(1, ...rows.flatMap((r) => series.map((s) => r[s.key] ?? 0)));
  const slot = (W - pad) / Math.max(1, days.length);
  const bar = Math.max(1, (slot - 2) / series.length);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H + 20}`} role="img" aria-label={`${title}: bar chart, ${days.length} days`} preserveAspectRatio="none">
        <line x1={pad} y1={H} x2={W} y2={H} className="axis" />
        <text x={pad - 4} y={10} className="tick" textAnchor="end">
          {max}
        </text>
        <text x={pad - 4} y={H} className="tick" textAnchor="end">
          0
        </text>
        {rows.map((r, i) =>
          series.map((s, j) => {
            const v = r[s.key] ?? 0;
            const h = (v / max) * (H - 12);
            return <rect key={`${i}-${s.key}`} x={pad + i * slot + j * bar} y={H - h} width={bar} height={h} className={`bar bar-${j}`} />;
          }),
        )}
        {days.map((d, i) =>
          i % Math.ceil(days.length / 6) === 0 ? (
            <text key={d} x={pad + i * slot} y={H + 14} className="tick">
              {d.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <ul className="legend">
        {series.map((s, j) => (
          <li key={s.key}>
            <span className={`swatch bar-${j}`} aria-hidden="true" /> {s.label}
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** A rate from 0 to 1 as a horizontal bar with its percentage. */
export function RateBar({ label, rate }: { label: string; rate: number | null }) {
  const pct = rate === null ? null : Math.round(rate * 100);
  return (
    <div className="rate">
      <span>{label}</span>
      <svg viewBox="0 0 100 8" role="img" aria-label={`${label}: ${pct === null ? "no data" : `${pct}%`}`} preserveAspectRatio="none">
        <rect x={0} y={0} width={100} height={8} className="rate-bg" />
        <rect x={0} y={0} width={pct ?? 0} height={8} className="bar bar-0" />
      </svg>
      <span>{pct === null ? "—" : `${pct}%`}</span>
    </div>
  );
}
