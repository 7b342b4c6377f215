import type { DayOfDeliveries } from './api';

const OUTCOMES = [
  ['delivered', 'Delivered'],
  ['failed', 'Failed'],
  ['dropped', 'Dropped'],
] as const;

/** Attempts per day over 30 days, stacked by outcome; the numbers are in the table beside it for anyone who cannot see it. */
export function DeliveriesChart({ days }: { days: readonly DayOfDeliveries[] }) {
  const width = 600;
  const height = 140;
  const most = Math.max(1, ...days.map((day) => day.delivered + day.failed + day.dropped));
  const slot = width / Math.max(1, days.length);
  const total = (key: 'delivered' | 'failed' | 'dropped') => days.reduce((sum, day) => sum + day[key], 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="chart-title chart-caption">
        <title id="chart-title">Delivery attempts per day by outcome</title>
        {days.map((day, index) => {
          let top = height;
          return (
            <g key={day.date}>
              {OUTCOMES.map(([key]) => {
                const size = (day[key] / most) * height;
                top -= size;
                return size > 0 ? (
                  <rect key={key} class={`bar ${key}`} x={index * slot + 2} y={top} width={slot - 4} height={size} />
                ) : null;
              })}
            </g>
          );
        })}
        <text x="0" y={height + 16} class="axis">
          {days[0]?.date ?? ''}
        </text>
        <text x={width} y={height + 16} text-anchor="end" class="axis">
          {days.at(-1)?.date ?? ''}
        </text>
      </svg>
      <figcaption id="chart-caption">
        Attempts per day, last 30 days:{' '}
        {OUTCOMES.map(([key, label]) => (
          <span key={key} class="legend">
            <span class={`swatch ${key}`} aria-hidden="true" /> {label} {total(key)}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
