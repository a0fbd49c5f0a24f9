/**
 * A consumer group's lag over time, drawn by uPlot on a canvas: the total (thick) and up to eight
 * partitions, one series each. The container carries the
 * summary as its aria-label, since a canvas has no text of its own, and sizes the chart to its width
 * (a phone's too), following it when it changes.
 */
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { LagSample, Sample } from './api.js';

const COLOURS = ['#b3261e', '#1a7f37', '#8250df', '#bc4c00', '#0a7c86', '#953800', '#6e7781', '#cf222e'];
const HEIGHT = 180;

export function LagChart(props: { samples: Sample<LagSample>[] }): JSX.Element {
  const { samples } = props;
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ plot: uPlot; keys: string } | null>(null);
  const keys = [...new Set(samples.flatMap((x) => Object.keys(x.value.partitions)))].slice(0, 8);
  const total = samples.map((x) => Number(x.value.totalLag));
  const max = Math.max(1, ...total);
  const data: uPlot.AlignedData = [
    samples.map((s) => s.t / 1000),
    total,
    ...keys.map((k) => samples.map((s) => Number(s.value.partitions[k] ?? 0))),
  ];
  useEffect(() => {
    const el = box.current!;
    const id = keys.join('\0');
    if (chart.current && chart.current.keys === id) {
      chart.current.plot.setData(data);
      return;
    }
    chart.current?.plot.destroy();
    const opts: uPlot.Options = {
      width: Math.max(240, el.clientWidth),
      height: HEIGHT,
      // the legend is the paragraph below: uPlot's is a table, and the page's tables are its data
      legend: { show: false },
      scales: { y: { range: (_u, _lo, hi) => [0, Math.max(1, hi)] } },
      axes: [{ stroke: '#5c6670' }, { stroke: '#5c6670', size: 50 }],
      series: [
        { label: 'time' },
        { label: 'total', stroke: '#0b5cad', width: 2.5 },
        ...keys.map((k, i) => ({ label: k, stroke: COLOURS[i], width: 1 })),
      ],
    };
    chart.current = { plot: new uPlot(opts, data, el), keys: id };
  });
  useEffect(() => {
    const el = box.current!;
    const resize = new ResizeObserver(() => chart.current?.plot.setSize({ width: Math.max(240, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.current?.plot.destroy();
      chart.current = null;
    };
  }, []);
  return (
    <div>
    <div id="lag-chart" class="chart" ref={box} role="img" data-points={samples.length} data-series={samples.length ? keys.length + 1 : 0}
      aria-label={'total lag over ' + samples.length + ' samples' + (samples.length ? ', now ' + total[total.length - 1] + ', max ' + max : '') + (keys.length ? '; partitions ' + keys.join(', ') : '')} />
    <p class="muted legend">
      <span class="key" style={{ color: '#0b5cad' }}>━ total</span>
      {keys.map((k, i) => <span class="key" style={{ color: COLOURS[i] }}>{' ─ ' + k}</span>)}
    </p>
    </div>
  );
}
