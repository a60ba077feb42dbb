import type { AuthorPostJson } from '@/server/services/posts/post-view';
import { consoleParts } from '@/server/console/context';
import { recentReaderDays } from '@/server/console/reader-days';
import type { ReaderDay } from '@/server/model/readers';
import { PopularityHelp } from './popularity-help';

/**
 * An article's reader counters in the editor: the totals, the read ratio (reads ÷ opens) and
 * the last 30 days of opens, reads and full reads as a small chart drawn on the server (SVG:
 * no script, no chart library). It sits above the editor as one summary line, a disclosure
 * that opens to the counters and the chart, so the editor stays above the fold on a laptop and
 * on a phone; the open state needs no script (a native <details>).
 */
export async function ReaderStats({ post, accountId }: { post: AuthorPostJson; accountId: string }) {
  let days: ReaderDay[] | null;
  try {
    days = await recentReaderDays(consoleParts().db, accountId, post.id);
  } catch {
    days = null;
  }
  const ratio = post.open_count > 0 ? `${Math.round((100 * post.read_count) / post.open_count)} %` : '—';
  const totals: [string, string][] = [
    ['Opens', fmt(post.open_count)],
    ['Reads', fmt(post.read_count)],
    ['Full reads', fmt(post.complete_count)],
    ['Read ratio', ratio],
    ['Impressions', fmt(post.impression_count)],
    ['Likes', fmt(post.like_count)],
    ['Comments', fmt(post.comment_count)],
    ['Saves', fmt(post.save_count)],
    ['Popularity', fmt(post.popularity)],
  ];
  const line = [
    counted(post.open_count, 'open', 'opens'),
    counted(post.read_count, 'read', 'reads'),
    counted(post.complete_count, 'full read', 'full reads'),
    `read ratio ${ratio}`,
  ].join(' · ');
  return (
    <section className="reader-stats" aria-labelledby="reader-stats-title">
      <details>
        <summary>
          <h2 id="reader-stats-title">Readers</h2> <span className="reader-stats__line">{line}</span>
        </summary>
        <dl className="counters reader-stats__totals" aria-label="Reader counters">
          {totals.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd aria-describedby={label === 'Popularity' ? 'reader-popularity-help' : undefined}>{value}</dd>
            </div>
          ))}
        </dl>
        <PopularityHelp id="reader-popularity-help" />
        {days ? (
          <ReaderChart days={days} />
        ) : (
          <p className="muted">The last 30 days could not be loaded; reload to try again.</p>
        )}
      </details>
    </section>
  );
}

const fmt = (n: number) => n.toLocaleString('en');
const counted = (n: number, one: string, many: string) => `${fmt(n)} ${n === 1 ? one : many}`;

const SERIES = [
  // Widths and dashes differ, so series with equal counts (often: every open read in full) stay visible.
  { key: 'opens', label: 'Opens', one: 'open', color: '#0a58ca', width: 4, dash: undefined },
  { key: 'reads', label: 'Reads', one: 'read', color: '#1a7f37', width: 2.5, dash: '7 4' },
  { key: 'completes', label: 'Full reads', one: 'full read', color: '#9a6700', width: 1.5, dash: '2 3' },
] as const;

const WIDTH = 600;
const HEIGHT = 140;
const PAD = { left: 36, right: 8, top: 8, bottom: 20 };

function ReaderChart({ days }: { days: ReaderDay[] }) {
  const max = Math.max(1, ...days.map((d) => d.opens), ...days.map((d) => d.reads), ...days.map((d) => d.completes));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (days.length > 1 ? (i * plotW) / (days.length - 1) : plotW / 2);
  const y = (v: number) => PAD.top + plotH - (v * plotH) / max;
  const sum = (key: (typeof SERIES)[number]['key']) => days.reduce((n, d) => n + d[key], 0);
  const counted = (s: (typeof SERIES)[number]) => {
    const n = sum(s.key);
    return `${fmt(n)} ${n === 1 ? s.one : s.label.toLowerCase()}`;
  };
  const summary = `Last ${days.length} days: ${SERIES.map(counted).join(', ')}.`;
  return (
    <figure className="reader-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} stroke="#d0d7de" />
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max)} y2={y(max)} stroke="#eef1f4" />
        <text x={PAD.left - 4} y={y(max) + 4} textAnchor="end" fontSize="10" fill="#57606a">
          {fmt(max)}
        </text>
        <text x={PAD.left - 4} y={y(0) + 4} textAnchor="end" fontSize="10" fill="#57606a">
          0
        </text>
        <text x={PAD.left} y={HEIGHT - 4} fontSize="10" fill="#57606a">
          {days[0]?.day}
        </text>
        <text x={WIDTH - PAD.right} y={HEIGHT - 4} textAnchor="end" fontSize="10" fill="#57606a">
          {days.at(-1)?.day}
        </text>
        {SERIES.map((s) => (
          <polyline
            key={s.key}
            fill="none"
            stroke={s.color}
            strokeWidth={s.width}
            strokeDasharray={s.dash}
            points={days.map((d, i) => `${x(i).toFixed(1)},${y(d[s.key]).toFixed(1)}`).join(' ')}
          >
            <title>{s.label}</title>
          </polyline>
        ))}
      </svg>
      <figcaption className="reader-chart__legend">
        {SERIES.map((s) => (
          <span key={s.key}>
            <span className="reader-chart__swatch" style={{ background: s.color }} aria-hidden="true" />
            {s.label}
          </span>
        ))}
        <span className="muted">{summary}</span>
      </figcaption>
    </figure>
  );
}
