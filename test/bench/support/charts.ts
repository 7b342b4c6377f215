import { writeFileSync } from 'node:fs';
import { createCanvas } from '@napi-rs/canvas';

export interface Series {
  readonly label: string;
  readonly colour: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
}

const WIDTH = 900;
const HEIGHT = 420;
const MARGIN = { left: 80, right: 20, top: 40, bottom: 50 };

const niceMax = (value: number) => {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * magnitude).find((candidate) => candidate >= value) as number;
};

/** A line chart of a few series over minutes, written as a PNG: what the soak report shows. */
export function writeLineChart(file: string, title: string, yLabel: string, series: readonly Series[]): void {
  const canvas = createCanvas(WIDTH, HEIGHT);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, WIDTH, HEIGHT);
  const xs = series.flatMap((line) => line.points.map(([x]) => x));
  const ys = series.flatMap((line) => line.points.map(([, y]) => y));
  const xMax = Math.max(1, ...xs);
  const yMax = niceMax(Math.max(0, ...ys) * 1.1);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + (x / xMax) * plotWidth;
  const py = (y: number) => MARGIN.top + plotHeight - (y / yMax) * plotHeight;

  g.fillStyle = '#111111';
  g.font = 'bold 16px sans-serif';
  g.fillText(title, MARGIN.left, 24);
  g.font = '12px sans-serif';
  g.strokeStyle = '#dddddd';
  g.lineWidth = 1;
  for (let tick = 0; tick <= 5; tick++) {
    const y = (yMax * tick) / 5;
    g.beginPath();
    g.moveTo(MARGIN.left, py(y));
    g.lineTo(WIDTH - MARGIN.right, py(y));
    g.stroke();
    g.fillText(String(Math.round(y * 10) / 10), 34, py(y) + 4);
  }
  // Whole minutes only, at most about six of them: a short run's axis reads 0, 1, 2, not 0, 0, 1, 1.
  const xStep = Math.max(1, Math.ceil(xMax / 6));
  for (let x = 0; x <= xMax; x += xStep) g.fillText(String(x), px(x) - 6, HEIGHT - MARGIN.bottom + 18);
  g.fillText('minute', WIDTH / 2 - 20, HEIGHT - 12);
  g.save();
  g.translate(16, HEIGHT / 2 + 40);
  g.rotate(-Math.PI / 2);
  g.fillText(yLabel, 0, 0);
  g.restore();
  g.strokeStyle = '#333333';
  g.beginPath();
  g.moveTo(MARGIN.left, MARGIN.top);
  g.lineTo(MARGIN.left, HEIGHT - MARGIN.bottom);
  g.lineTo(WIDTH - MARGIN.right, HEIGHT - MARGIN.bottom);
  g.stroke();

  series.forEach((line, index) => {
    g.strokeStyle = line.colour;
    g.lineWidth = 2;
    g.beginPath();
    for (const [point, [x, y]] of line.points.entries()) {
      if (point === 0) g.moveTo(px(x), py(y));
      else g.lineTo(px(x), py(y));
    }
    g.stroke();
    g.fillStyle = line.colour;
    // A dot per point when there are few, so a line of two or three minutes still shows where its values are.
    if (line.points.length <= 12) for (const [x, y] of line.points) g.fillRect(px(x) - 3, py(y) - 3, 6, 6);
    g.fillRect(WIDTH - MARGIN.right - 200, MARGIN.top + 8 + index * 18, 12, 4);
    g.fillStyle = '#111111';
    g.fillText(line.label, WIDTH - MARGIN.right - 182, MARGIN.top + 14 + index * 18);
  });
  writeFileSync(file, canvas.toBuffer('image/png'));
}
