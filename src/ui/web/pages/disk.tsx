/**
 * The log on disk: partitions, a partition's segments with Kafka's read path for one offset step by
 * step, a segment's batches against its sparse offset index, and a batch's bytes field by field.
 */
import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, enc, type Batch, type DiskTopic, type Lookup, type Segment, type SegmentRow } from '../api.js';
import { fmtBytes, fmtTime } from '../format.js';
import { Crumbs, ErrorBox, session, Table } from '../ui.js';

const diskHref = (topic: string, ...rest: (string | number)[]): string => ['#/disk', enc(topic), ...rest].join('/');

export async function diskPage(): Promise<JSX.Element> {
  const topics = await api<DiskTopic[]>('disk');
  return (
    <>
      <h1>Log on disk</h1>
      <p class="muted">{session.info.dataDir}</p>
      <Table headers={['Partition', 'Segments', 'Bytes', 'Start offset', 'End offset']} numeric={[1, 2, 3, 4]}
        rows={topics.flatMap((t) => t.partitions.map((p) => [<a href={diskHref(t.name, p.partition)}>{t.name + '-' + p.partition}</a>, p.segments, fmtBytes(p.bytes), p.startOffset || '', p.endOffset || '']))} />
    </>
  );
}

/** Kafka's read path for one offset, step by step: segment, index binary search, scan to the batch. */
function LookupForm(props: { topic: string; p: string }): JSX.Element {
  const { topic, p } = props;
  const input = useRef<HTMLInputElement>(null);
  const [result, setResult] = useState<{ r: Lookup } | { error: unknown } | null>(null);
  const run = async (): Promise<void> => {
    try {
      setResult({ r: await api<Lookup>('disk/' + enc(topic) + '/' + p + '/lookup?offset=' + enc(input.current!.value.trim())) });
    } catch (error) {
      setResult({ error });
    }
  };
  let steps: JSX.Element | null = null;
  if (result && 'r' in result) {
    const r = result.r;
    steps = (
      <ol>
        <li>{'Segment: the greatest base offset at or below ' + r.offset + ' among [' + r.segments.join(', ') + '] is ' + (r.segment === null ? 'none (the offset is below the log)' : r.segment)}</li>
        {r.segment !== null && <>
          {r.probes.map((x) => <li>{'Index probe: slots ' + x.lo + '..' + x.hi + ', middle slot ' + x.mid + ' holds offset ' + x.entryOffset + ' at position ' + x.position + ': ' + (x.goes === 'found' ? 'found' : 'search ' + x.goes)}</li>)}
          <li>{r.indexEntry === null ? 'Index: no entry at or below the offset, scan from position 0' : 'Index: slot ' + r.indexEntry.slot + ', offset ' + r.indexEntry.offset + ', start scanning at position ' + r.indexEntry.position}</li>
          <li>{'Scan: ' + r.scanned.length + ' batch header(s) read (' + r.scanned.map((x) => x.position + '→' + x.lastOffset).join(', ') + ')'}</li>
          <li>{r.batch === null ? 'No batch reaches the offset: it is past the segment’s end' : <span>Batch at position <a href={diskHref(topic, p, r.segment, r.batch.position)}>{r.batch.position}</a>{' holds offsets up to ' + r.batch.lastOffset}</span>}</li>
        </>}
      </ol>
    );
  }
  return (
    <div>
      <form class="bar" onSubmit={(ev) => { ev.preventDefault(); void run(); }}>
        <label>Offset<input ref={input} id="lk-offset" name="offset" inputMode="numeric" size={14} /></label>
        <button type="submit" id="lk-go">Find</button>
      </form>
      <div id="lk-steps" aria-live="polite">{result && 'error' in result ? <ErrorBox error={result.error} /> : steps}</div>
    </div>
  );
}

export async function segmentsPage(topic: string, p: string): Promise<JSX.Element> {
  const segs = await api<SegmentRow[]>('disk/' + enc(topic) + '/' + p + '/segments');
  return (
    <>
      <Crumbs links={[['Log on disk', '#/disk']]} here={topic + '-' + p} />
      <h1>{topic + '-' + p}: segments</h1>
      <h2>Find an offset as Kafka’s read path does</h2>
      <LookupForm topic={topic} p={p} />
      <h2>Segments</h2>
      <Table headers={['Base offset', 'Size', 'Batches', 'Offsets', 'Max timestamp', 'Offset index entries', 'Time index entries', '']} numeric={[0, 1, 2, 5, 6]}
        rows={segs.map((s) => [<a href={diskHref(topic, p, s.baseOffset)}>{s.baseOffset}</a>, fmtBytes(s.sizeInBytes), s.batches,
          s.firstOffset === null ? 'empty' : s.firstOffset + '–' + (BigInt(s.nextOffset) - 1n), s.maxTimestamp === null ? '' : fmtTime(s.maxTimestamp), s.offsetIndexEntries, s.timeIndexEntries, s.active ? 'active' : ''])} />
    </>
  );
}

/** Batches along the segment's bytes, with the offset index entries marked under them: the index is sparse. */
function SparseIndex(props: { seg: Segment }): JSX.Element {
  const { seg } = props;
  const size = Math.max(1, seg.sizeInBytes);
  return (
    <div>
      <svg class="sparse" viewBox="0 0 1000 44" preserveAspectRatio="none" role="img" aria-label={seg.batches.length + ' batches, ' + seg.offsetIndex.length + ' offset index entries'}>
        {seg.batches.map((b) => <rect x={(b.position / size) * 1000} y={2} width={Math.max(0.6, (b.sizeInBytes / size) * 1000 - 0.4)} height={20} fill="#8fb8e6" />)}
        {seg.offsetIndex.map((e) => <rect x={(e.position / size) * 1000} y={24} width={2} height={18} fill="#b3261e" />)}
      </svg>
      <p class="muted">Blue: batches along the file; red: offset index entries (one per index.interval.bytes).</p>
    </div>
  );
}

export async function segmentPage(topic: string, p: string, base: string): Promise<JSX.Element> {
  const seg = await api<Segment>('disk/' + enc(topic) + '/' + p + '/segments/' + base);
  const link = (pos: number): string => diskHref(topic, p, base, pos);
  return (
    <>
      <Crumbs links={[['Log on disk', '#/disk'], [topic + '-' + p, diskHref(topic, p)]]} here={'segment ' + base} />
      <h1>Segment {base} of {topic + '-' + p}</h1>
      <p class="muted">{fmtBytes(seg.sizeInBytes) + ', ' + seg.batches.length + ' batches' + (seg.truncated ? ' (first ones shown)' : '')}</p>
      <SparseIndex seg={seg} />
      <h2>Batches</h2>
      <Table headers={['Position', 'Size', 'Magic', 'Base offset', 'Last offset', 'Max timestamp']} numeric={[0, 1, 2, 3, 4]}
        rows={seg.batches.map((b) => [<a href={link(b.position)}>{b.position}</a>, b.sizeInBytes, b.magic, b.baseOffset ?? '', b.lastOffset, fmtTime(b.maxTimestamp)])} />
      <h2>Offset index</h2>
      <Table headers={['Offset', 'Position']} numeric={[0, 1]} rows={seg.offsetIndex.map((e) => [e.offset, <a href={link(e.position)}>{e.position}</a>])} />
      <h2>Time index</h2>
      <Table headers={['Timestamp', 'Offset']} numeric={[1]} rows={seg.timeIndex.map((e) => [fmtTime(e.timestamp) + ' (' + e.timestamp + ')', e.offset])} />
    </>
  );
}

export async function batchPage(topic: string, p: string, base: string, pos: string): Promise<JSX.Element> {
  const b = await api<Batch>('disk/' + enc(topic) + '/' + p + '/segments/' + base + '/batches/' + pos);
  const bytes = b.hex.match(/../g) ?? [];
  const owner = new Array<number>(bytes.length).fill(-1);
  b.fields.forEach((f, i) => { for (let k = f.offset; k < f.offset + f.size && k < owner.length; k++) owner[k] = i; });
  return (
    <>
      <Crumbs links={[['Log on disk', '#/disk'], [topic + '-' + p, diskHref(topic, p)], ['segment ' + base, diskHref(topic, p, base)]]} here={'position ' + pos} />
      <h1>Batch at position {pos} (magic {b.magic}, {b.sizeInBytes} bytes)</h1>
      <p>
        {'CRC (' + b.crc.algorithm + ' over bytes ' + b.crc.coveredFrom + '..end): stored ' + b.crc.stored + ', recomputed ' + b.crc.computed + ' '}
        {b.crc.valid ? <span class="good" id="crc-ok">match</span> : <span class="bad" id="crc-bad">MISMATCH</span>}
      </p>
      <h2>Header fields</h2>
      <div id="batch-fields">
        <Table headers={['Field', 'Bytes', 'Value', 'Hex']} rows={b.fields.map((f, i) => [<span class={'f' + (i % 8)}>{f.name}</span>, f.offset + '..' + (f.offset + f.size - 1), f.value, <code>{f.hex}</code>])} />
      </div>
      <h2>Attributes</h2>
      <Table headers={['Bit', 'Value']} rows={b.attributes.map((a) => [a.bit, a.value])} />
      <h2>Bytes{b.sizeInBytes > bytes.length ? ' (first ' + bytes.length + ')' : ''}</h2>
      <div class="hex" id="batch-hex" aria-label="batch bytes">
        {bytes.map((x, k) => { const o = owner[k]!; return <span class={o < 0 ? 'rec' : 'f' + (o % 8)} title={o < 0 ? 'records' : b.fields[o]!.name}>{x}</span>; })}
      </div>
      <p class="muted legend">Coloured as the header fields above; grey: the records.</p>
      <p class="muted">{'Codec ' + b.meta.codec + ', offsets ' + b.meta.baseOffset + '–' + b.meta.lastOffset + (b.records === null ? '' : ', ' + b.records + ' records')}</p>
    </>
  );
}
