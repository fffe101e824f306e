/**
 * A line plot as inline SVG, drawn on the server: the savings page runs no script (its CSP allows none) and loads
 * nothing from elsewhere. Colors are presentation attributes, which a nonce-only style-src does not block.
 */

export interface PlotLine {
  label: string;
  color: string;
  /** [time in ms, value], in time order. */
  points: ReadonlyArray<readonly [number, number]>;
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 64, right: 16, top: 32, bottom: 36 };

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** `lines` over a shared time axis, each a step from zero (totals grow); `format` writes the value axis. */
export function linePlot(title: string, lines: readonly PlotLine[], format: (value: number) => string): string {
  const all = lines.flatMap((line) => line.points);
  const label = escape(title);
  if (all.length === 0)
    return `<figure class="plot"><figcaption>${label}</figcaption><p class="empty">Nothing yet.</p></figure>`;
  const first = Math.min(...all.map(([t]) => t));
  const last = Math.max(...all.map(([t]) => t), first + 1000);
  const top = Math.max(...all.map(([, v]) => v), 1);
  const x = (t: number) => PAD.left + ((t - first) / (last - first)) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => HEIGHT - PAD.bottom - (v / top) * (HEIGHT - PAD.top - PAD.bottom);
  const n = (value: number) => value.toFixed(1);
  const paths = lines.map((line) => {
    let d = `M${n(x(first))} ${n(y(0))}`;
    for (const [t, v] of line.points) d += ` H${n(x(t))} V${n(y(v))}`;
    d += ` H${n(x(last))}`;
    return `<path class="line" data-label="${escape(line.label)}" d="${d}" fill="none" stroke="${line.color}" stroke-width="2"/>`;
  });
  const ticks = [0, 0.5, 1].map(
    (f) =>
      `<text x="${PAD.left - 6}" y="${n(y(top * f) + 4)}" text-anchor="end">${escape(format(top * f))}</text>` +
      `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${n(y(top * f))}" y2="${n(y(top * f))}" stroke="#dde1e7"/>`,
  );
  const times = `<text x="${PAD.left}" y="${HEIGHT - 12}">${clock(first)} UTC</text><text x="${WIDTH - PAD.right}" y="${HEIGHT - 12}" text-anchor="end">${clock(last)} UTC</text>`;
  const legend = lines
    .map(
      (line, i) =>
        `<rect x="${PAD.left + 8 + i * 180}" y="6" width="12" height="12" fill="${line.color}"/>` +
        `<text x="${PAD.left + 26 + i * 180}" y="17">${escape(line.label)}</text>`,
    )
    .join('');
  return `<figure class="plot"><figcaption>${label}</figcaption><svg role="img" aria-label="${label}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-size="11" fill="#5b6475">${ticks.join('')}${paths.join('')}${times}${legend}</svg></figure>`;
}
