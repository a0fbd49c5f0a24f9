/**
 * The building blocks every page uses: tables, error boxes, breadcrumbs, a record's bytes shown as
 * text, JSON or hex, sparklines, and the server's samples as a hook. Preact renders all text as text
 * nodes: topic names, keys, values and headers are data, never markup.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Info, Sample } from './api.js';
import { bytesOf, hexOf } from './format.js';

/** What the console is connected to (GET /api/info), set once before the first page renders. */
export const session: { info: Info } = { info: { mode: 'bootstrap', bootstrap: null, dataDir: null, readOnly: false } };

/** How often the server samples for the charts (ms); ?sample=N in the page's address changes it. */
export const SAMPLE_MS = Number(new URLSearchParams(location.search).get('sample')) || 2000;

export function Table(props: { headers: ComponentChildren[]; rows: ComponentChildren[][]; numeric?: number[]; id?: string }): JSX.Element {
  const num = new Set(props.numeric ?? []);
  const cls = (i: number): string | undefined => (num.has(i) ? 'num' : undefined);
  return (
    <div class="scroll" id={props.id}>
      <table>
        <thead><tr>{props.headers.map((x, i) => <th scope="col" class={cls(i)}>{x}</th>)}</tr></thead>
        <tbody>
          {props.rows.length === 0
            ? <tr><td colSpan={props.headers.length} class="muted">none</td></tr>
            : props.rows.map((r) => <tr>{r.map((c, i) => <td class={cls(i)}>{c}</td>)}</tr>)}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Children rendered only after the page's first paint (Preact runs effects after it): what lies
 * below the fold then adds nothing to the layout and painting of the frame that first shows the page.
 */
export function AfterFirstPaint(props: { children: ComponentChildren }): JSX.Element | null {
  const [shown, setShown] = useState(false);
  useEffect(() => setShown(true), []);
  return shown ? <>{props.children}</> : null;
}

export function ErrorBox(props: { error: unknown }): JSX.Element {
  const e = props.error;
  return <div class="error" role="alert">{e instanceof Error ? e.message : String(e)}</div>;
}

/** Breadcrumbs: [label, href] links, then the current page's name. */
export function Crumbs(props: { links: [string, string][]; here: string }): JSX.Element {
  return <div class="crumbs">{props.links.map(([label, href]) => <><a href={href}>{label}</a>{' / '}</>)}{props.here}</div>;
}

export function Card(props: { label: string; children: ComponentChildren; id?: string }): JSX.Element {
  return <div class="card"><b id={props.id}>{props.children}</b>{props.label}</div>;
}

export type Format = 'text' | 'json' | 'hex';

/** A key, value or header value (base64) as text, JSON (pretty) or hex; null stays visible as null. */
export function Bytes(props: { b64: string | null; format: Format }): JSX.Element {
  if (props.b64 === null) return <span class="muted">null</span>;
  const bytes = bytesOf(props.b64);
  if (props.format === 'hex') return <pre>{hexOf(bytes)}</pre>;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return <pre title="not UTF-8: shown as hex">{hexOf(bytes)}</pre>;
  }
  if (props.format === 'json') {
    try {
      return <pre class="json">{JSON.stringify(JSON.parse(text), null, 2)}</pre>;
    } catch {
      return <pre>{text}</pre>;
    }
  }
  return <pre>{text}</pre>;
}

export function Headers(props: { headers: { key: string; value: string | null }[]; format: Format }): JSX.Element {
  return <div>{props.headers.map((x) => <div class="hdr"><code>{x.key}</code>: <Bytes b64={x.value} format={props.format} /></div>)}</div>;
}

/** A sparkline of numbers (oldest first), scaled to its own range; its aria-label says the range. */
export function Spark(props: { values: number[]; label: string }): JSX.Element {
  const { values, label } = props;
  const w = 120;
  const hgt = 26;
  const aria = label + ': ' + (values.length ? values.length + ' samples, last ' + values[values.length - 1] + ', min ' + Math.min(...values) + ', max ' + Math.max(...values) : 'no samples yet');
  let points = '';
  if (values.length > 0) {
    const lo = Math.min(...values);
    const span = Math.max(...values) - lo || 1;
    const step = values.length > 1 ? w / (values.length - 1) : 0;
    const pts = values.map((v, i) => (i * step).toFixed(1) + ',' + (hgt - 2 - ((v - lo) / span) * (hgt - 4)).toFixed(1));
    if (values.length === 1) pts.push(w + ',' + pts[0]!.split(',')[1]);
    points = pts.join(' ');
  }
  return (
    <svg class="spark" viewBox={`0 0 ${w} ${hgt}`} role="img" data-points={values.length} aria-label={aria}>
      {points && <polyline points={points} fill="none" stroke="#0b5cad" stroke-width={1.5} />}
    </svg>
  );
}

/** The server's samples (history, then each new one) for as long as the component stays. */
export function useSamples<V>(path: string): Sample<V>[] {
  const [samples, setSamples] = useState<Sample<V>[]>([]);
  useEffect(() => {
    let all: Sample<V>[] = [];
    const source = new EventSource('/api/samples/' + path + (path.includes('?') ? '&' : '?') + 'interval=' + SAMPLE_MS);
    source.addEventListener('history', (e) => { all = [...all, ...(JSON.parse(e.data) as Sample<V>[])]; setSamples(all); });
    source.addEventListener('sample', (e) => { all = [...all, JSON.parse(e.data) as Sample<V>].slice(-120); setSamples(all); });
    return () => source.close();
  }, [path]);
  return samples;
}

/** An async action's outcome for a status area: nothing yet, a result, or an error. */
type Outcome<T> = { ok: T } | { error: unknown } | null;

export async function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: await p };
  } catch (error) {
    return { error };
  }
}
