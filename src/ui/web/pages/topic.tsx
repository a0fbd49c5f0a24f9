/** A topic: partitions with their offsets, the message browser, a live tail, a produce form and its configs. */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, send, type Config, type Message, type MessagePage, type PartitionRow, type Topic } from '../api.js';
import { fmtTime, startSpec } from '../format.js';
import { AfterFirstPaint, Bytes, Crumbs, ErrorBox, Headers, session, Table, type Format } from '../ui.js';
import { ConfigSection } from './configs.js';

/** The message browser's form as it first shows: the first partition from its beginning, oldest first, no filters. */
const FIRST_FORM = { from: 'beginning', limit: '50', direction: 'forward' } as const;

type Loaded = { page: MessagePage; ms: number } | { error: unknown };

/** The messages API's query for the browser form's fields (the filters only when given). */
function messagesQuery(partition: string, start: string, limit: string, direction: string, filters: [string, string][] = []): string {
  let query = 'partition=' + enc(partition) + '&from=' + enc(start) + '&limit=' + enc(limit) + '&direction=' + direction;
  for (const [k, v] of filters) if (v !== '') query += '&' + k + '=' + enc(v);
  return query;
}

/** A page of messages with the time its request took (the summary line shows it); an error as its outcome. */
async function loadMessages(topic: string, query: string): Promise<Loaded> {
  const t0 = performance.now();
  try {
    const page = await api<MessagePage>('topics/' + enc(topic) + '/messages?' + query);
    return { page, ms: Math.round(performance.now() - t0) };
  } catch (error) {
    return { error };
  }
}

export async function topicPage(name: string): Promise<JSX.Element> {
  const { dataDir, readOnly } = session.info;
  // The topic, the first page of its messages and its configs are asked for at once, so no request
  // waits for another's answer and its rendering. A topic's partitions are numbered from 0 (Kafka
  // creates 0..n-1), so the first page asks for partition 0, the form's first choice; should the
  // topic say otherwise, that answer is dropped and the browser asks for its first partition.
  // The page shows once the topic is in: the messages with it when they are in too, else in the
  // frame after (the page around them laid out while they come).
  let firstIn: Loaded | null = null;
  const first = loadMessages(name, messagesQuery('0', FIRST_FORM.from, FIRST_FORM.limit, FIRST_FORM.direction)).then((r) => (firstIn = r));
  const configs = readOnly ? null : api<Config[]>('topics/' + enc(name) + '/configs');
  configs?.catch(() => undefined); // the section shows the error; the topic's own may come first
  const t = await api<Topic>('topics/' + enc(name));
  const firstPage = t.partitions[0]?.partition !== 0 ? null : (firstIn ?? first);
  return (
    <>
      <Crumbs links={[['Topics', '#/']]} here={name} />
      <h1>{name}</h1>
      <h2>Partitions</h2>
      <Table headers={['Partition', 'Leader', 'Start offset', 'End offset', 'Last stable offset', 'Messages', dataDir ? 'Log on disk' : '']} numeric={[0, 1, 2, 3, 4, 5]}
        rows={t.partitions.map((p) => [p.partition, p.leader, p.startOffset, p.endOffset, p.lastStableOffset ?? '', p.messages, dataDir ? <a href={'#/disk/' + enc(name) + '/' + p.partition}>segments</a> : ''])} />
      <h2>Messages</h2>
      <MessageBrowser topic={name} partitions={t.partitions} first={firstPage} />
      {!readOnly && (
        <AfterFirstPaint>
          <h2>Live tail</h2><LiveTail topic={name} partitions={t.partitions} />
          <h2>Produce a message</h2><ProduceForm topic={name} partitions={t.partitions} />
          <h2>Configs</h2><ConfigSection path={'topics/' + enc(name) + '/configs'} initial={configs} />
        </AfterFirstPaint>
      )}
    </>
  );
}

function PartitionSelect(props: { id: string; partitions: PartitionRow[]; select: { current: HTMLSelectElement | null } }): JSX.Element {
  return <select ref={props.select} id={props.id} name="partition">{props.partitions.map((p) => <option value={p.partition}>{p.partition}</option>)}</select>;
}

function batchText(m: Message): string {
  const b = m.batch;
  return b.codec + ' · magic ' + b.magic + ' · batch ' + b.baseOffset + '–' + b.lastOffset + (b.producerId !== '-1' ? ' · pid ' + b.producerId + '/' + b.producerEpoch + ' seq ' + b.baseSequence : '') + (b.transactional ? ' · txn' : '');
}

/** Messages from the beginning, an offset, a timestamp or the end, either way, filtered by key, value or header. */
function MessageBrowser(props: { topic: string; partitions: PartitionRow[]; first: Loaded | Promise<Loaded> | null }): JSX.Element {
  const part = useRef<HTMLSelectElement>(null);
  const from = useRef<HTMLSelectElement>(null);
  const at = useRef<HTMLInputElement>(null);
  const dir = useRef<HTMLSelectElement>(null);
  const limit = useRef<HTMLInputElement>(null);
  const fKey = useRef<HTMLInputElement>(null);
  const fValue = useRef<HTMLInputElement>(null);
  const fHeader = useRef<HTMLInputElement>(null);
  const [format, setFormat] = useState<Format>('text');
  const [page, setPage] = useState<Loaded | null>(props.first instanceof Promise ? null : props.first);
  const load = async (spec?: string): Promise<void> => {
    const start = spec ?? startSpec(from.current!.value, at.current!.value);
    const filters: [string, string][] = [['key', fKey.current!.value], ['value', fValue.current!.value], ['header', fHeader.current!.value]];
    setPage(await loadMessages(props.topic, messagesQuery(part.current!.value, start, limit.current!.value, dir.current!.value, filters)));
  };
  useEffect(() => {
    // a page the form loaded meanwhile stays
    if (props.first instanceof Promise) void props.first.then((r) => setPage((shown) => shown ?? r));
    else if (!props.first) void load();
  }, []);
  // newest first from the beginning would show nothing: it starts at the end
  const directionChanged = (): void => { if (dir.current!.value === 'backward' && from.current!.value === 'beginning') from.current!.value = 'end'; };
  return (
    <div>
      <form class="bar" onSubmit={(ev) => { ev.preventDefault(); void load(); }}>
        <label>Partition<PartitionSelect id="mb-partition" partitions={props.partitions} select={part} /></label>
        <label>From<select ref={from} id="mb-from" name="from">{['beginning', 'offset', 'timestamp', 'end'].map((x) => <option value={x}>{x}</option>)}</select></label>
        <label>Offset / time<input ref={at} id="mb-at" name="at" placeholder="offset or ms / ISO time" size={22} /></label>
        <label>Order<select ref={dir} id="mb-dir" name="direction" onChange={directionChanged}><option value="forward">oldest first</option><option value="backward">newest first</option></select></label>
        <label>Limit<input ref={limit} id="mb-limit" name="limit" type="number" min={1} max={500} defaultValue={FIRST_FORM.limit} size={5} /></label>
        <label>Key filter<input ref={fKey} id="mb-key" name="key" size={12} placeholder="contains" /></label>
        <label>Value filter<input ref={fValue} id="mb-value" name="value" size={12} placeholder="contains" /></label>
        <label>Header filter<input ref={fHeader} id="mb-header" name="header" size={12} placeholder="key or value contains" /></label>
        <label>Show as<select id="mb-format" name="format" value={format} onChange={(ev) => setFormat(ev.currentTarget.value as Format)}>{['text', 'json', 'hex'].map((x) => <option value={x}>{x}</option>)}</select></label>
        <button type="submit" id="mb-load">Load</button>
      </form>
      <div id="mb-results" aria-live="polite">
        {page && ('error' in page ? <ErrorBox error={page.error} /> : <MessageList page={page.page} ms={page.ms} format={format} more={load} />)}
      </div>
    </div>
  );
}

function MessageList(props: { page: MessagePage; ms: number; format: Format; more: (spec: string) => Promise<void> }): JSX.Element {
  const { page: p, format: f } = props;
  const next = p.next;
  return (
    <>
      <p class="muted" id="mb-summary">
        {p.messages.length + ' messages ' + (p.direction === 'backward' ? 'newest first from offset ' : 'from offset ') + p.from + ' (partition start ' + p.startOffset + ', end ' + p.endOffset + (p.scanned !== p.messages.length ? ', ' + p.scanned + ' read to find them' : '') + '), ' + props.ms + ' ms'}
      </p>
      <Table headers={['Offset', 'Timestamp', 'Key', 'Value', 'Headers', 'Batch']} numeric={[0]}
        rows={p.messages.map((m) => [m.offset, fmtTime(m.timestamp), <Bytes b64={m.key} format={f} />, <Bytes b64={m.value} format={f} />,
          m.headers.length === 0 ? <span class="muted">none</span> : <Headers headers={m.headers} format={f} />, <span class="mono">{batchText(m)}</span>])} />
      {next && <button type="button" id="mb-next" class="secondary" onClick={() => void props.more(next)}>{p.direction === 'backward' ? 'Older messages' : 'Newer messages'}</button>}
    </>
  );
}

/** New messages as they arrive (server-sent events from long-poll Fetches); stopped by the button or by leaving the page. */
function LiveTail(props: { topic: string; partitions: PartitionRow[] }): JSX.Element {
  const part = useRef<HTMLSelectElement>(null);
  const source = useRef<EventSource | null>(null);
  const [running, setRunning] = useState(false);
  const [status, setStatus] = useState('stopped');
  const [rows, setRows] = useState<Message[]>([]);
  const stop = (text = 'stopped'): void => {
    source.current?.close();
    source.current = null;
    setRunning(false);
    setStatus(text);
  };
  const start = (): void => {
    const s = new EventSource('/api/topics/' + enc(props.topic) + '/tail?partition=' + enc(part.current!.value));
    source.current = s;
    setRunning(true);
    setStatus('connecting…');
    s.addEventListener('start', (e) => setStatus('waiting for messages after offset ' + (BigInt(JSON.parse(e.data).from) - 1n) + '…'));
    s.addEventListener('messages', (e) => {
      const ms = JSON.parse(e.data) as Message[];
      setRows((old) => [...ms.slice().reverse(), ...old].slice(0, 200));
      setStatus('live: last offset ' + ms[ms.length - 1]!.offset);
    });
    // an error event with data is the server's (the stream ends); without, the browser reconnects
    s.addEventListener('error', (e) => { if ((e as MessageEvent).data) stop(JSON.parse((e as MessageEvent).data).error); });
  };
  useEffect(() => () => source.current?.close(), []);
  return (
    <div>
      <div class="bar">
        <label>Partition<PartitionSelect id="tail-partition" partitions={props.partitions} select={part} /></label>
        <button type="button" id="tail-toggle" onClick={() => (source.current ? stop() : start())}>{running ? 'Stop' : 'Start live tail'}</button>
        <span id="tail-status" class="muted" aria-live="polite">{status}</span>
      </div>
      <div class="scroll" id="tail-list">
        <table>
          <thead><tr>{['Offset', 'Timestamp', 'Key', 'Value', 'Headers'].map((x) => <th scope="col">{x}</th>)}</tr></thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.offset}>
                <td class="num">{m.offset}</td><td>{fmtTime(m.timestamp)}</td><td><Bytes b64={m.key} format="text" /></td>
                <td><Bytes b64={m.value} format="text" /></td><td><Headers headers={m.headers} format="text" /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ProduceForm(props: { topic: string; partitions: PartitionRow[] }): JSX.Element {
  const part = useRef<HTMLSelectElement>(null);
  const key = useRef<HTMLInputElement>(null);
  const value = useRef<HTMLTextAreaElement>(null);
  const headers = useRef<HTMLTextAreaElement>(null);
  const [status, setStatus] = useState<{ good: string } | { error: unknown } | null>(null);
  const submit = async (): Promise<void> => {
    const hs = headers.current!.value.split('\n').filter((l) => l.trim() !== '').map((l) => {
      const i = l.indexOf('=');
      return i < 0 ? { key: l, value: '' } : { key: l.slice(0, i), value: l.slice(i + 1) };
    });
    const partition = part.current!.value;
    try {
      const r = await send<{ offset: string }>('topics/' + enc(props.topic) + '/messages', { partition: Number(partition), key: key.current!.value === '' ? null : key.current!.value, value: value.current!.value, headers: hs });
      setStatus({ good: 'Produced at offset ' + r.offset + ' of partition ' + partition });
    } catch (error) {
      setStatus({ error });
    }
  };
  return (
    <div>
      <form class="bar" onSubmit={(ev) => { ev.preventDefault(); void submit(); }}>
        <label>Partition<PartitionSelect id="pf-partition" partitions={props.partitions} select={part} /></label>
        <label>Key<input ref={key} id="pf-key" name="key" size={20} /></label>
        <label>Value<textarea ref={value} id="pf-value" name="value" /></label>
        <label>Headers<textarea ref={headers} id="pf-headers" name="headers" placeholder="one header a line: key=value" /></label>
        <button type="submit" id="pf-send">Produce</button>
      </form>
      <div id="pf-status" aria-live="polite">{status && ('good' in status ? <p class="good">{status.good}</p> : <ErrorBox error={status.error} />)}</div>
    </div>
  );
}
