const main = document.getElementById('main');
let info = { mode: 'bootstrap', readOnly: false };
/** What the current page opened (event streams): closed when the page changes. */
let cleanups = [];
function onLeave(f) { cleanups.push(f); }

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

async function api(path, options) {
  const res = await fetch('/api/' + path, options);
  const body = await res.json().catch(() => ({ error: res.status + ' ' + res.statusText }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function enc(s) { return encodeURIComponent(s); }

function table(headers, rows, numeric) {
  const num = new Set(numeric || []);
  return h('div', { class: 'scroll' }, h('table', {},
    h('thead', {}, h('tr', {}, headers.map((x, i) => h('th', { scope: 'col', class: num.has(i) ? 'num' : null }, x)))),
    h('tbody', {}, rows.length === 0
      ? h('tr', {}, h('td', { colspan: headers.length, class: 'muted' }, 'none'))
      : rows.map((r) => h('tr', {}, r.map((c, i) => h('td', { class: num.has(i) ? 'num' : null }, c)))))));
}

function errorBox(e) { return h('div', { class: 'error', role: 'alert' }, String(e.message || e)); }

function fmtBytes(n) {
  if (n === null || n === undefined) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0; let x = Number(n);
  while (x >= 1024 && i < u.length - 1) { x /= 1024; i++; }
  return (i === 0 ? String(x) : x.toFixed(1)) + ' ' + u[i];
}

function fmtTime(ms) {
  const n = Number(ms);
  if (!Number.isFinite(n) || n < 0) return String(ms);
  return new Date(n).toISOString().replace('T', ' ').replace('Z', '');
}

function bytesOf(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function hexOf(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' '); }

/** A key, value or header value as text, JSON (pretty) or hex; null stays visible as null. */
function render(b64, format) {
  if (b64 === null || b64 === undefined) return h('span', { class: 'muted' }, 'null');
  const bytes = bytesOf(b64);
  if (format === 'hex') return h('pre', {}, hexOf(bytes));
  let text;
  try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return h('pre', { title: 'not UTF-8: shown as hex' }, hexOf(bytes)); }
  if (format === 'json') {
    try { return h('pre', { class: 'json' }, JSON.stringify(JSON.parse(text), null, 2)); } catch { return h('pre', {}, text); }
  }
  return h('pre', {}, text);
}

function crumbs(...parts) {
  return h('div', { class: 'crumbs' }, parts.flatMap((p, i) => [i > 0 ? ' / ' : null, Array.isArray(p) ? h('a', { href: p[1] }, p[0]) : p]));
}

/** How often the server samples for the charts (ms); ?sample=N in the page's address changes it. */
const SAMPLE_MS = Number(new URLSearchParams(location.search).get('sample')) || 2000;
const SVG = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A sparkline of numbers (oldest first), scaled to its own range; its aria-label says the range. */
function spark(values, label) {
  const w = 120, hgt = 26;
  const svg = svgEl('svg', { class: 'spark', viewBox: '0 0 ' + w + ' ' + hgt, role: 'img', 'data-points': values.length,
    'aria-label': label + ': ' + (values.length ? values.length + ' samples, last ' + values[values.length - 1] + ', min ' + Math.min(...values) + ', max ' + Math.max(...values) : 'no samples yet') });
  if (values.length === 0) return svg;
  const lo = Math.min(...values), hi = Math.max(...values), span = hi - lo || 1;
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const pts = values.map((v, i) => (i * step).toFixed(1) + ',' + (hgt - 2 - (v - lo) / span * (hgt - 4)).toFixed(1));
  if (values.length === 1) pts.push(w + ',' + pts[0].split(',')[1]);
  svg.append(svgEl('polyline', { points: pts.join(' '), fill: 'none', stroke: '#0b5cad', 'stroke-width': 1.5 }));
  return svg;
}

/** Samples from the server (history, then each new sample) for as long as the page stays. */
function watchSamples(path, onSamples) {
  const all = [];
  const source = new EventSource('/api/samples/' + path + (path.includes('?') ? '&' : '?') + 'interval=' + SAMPLE_MS);
  source.addEventListener('history', (e) => { all.push(...JSON.parse(e.data)); onSamples(all); });
  source.addEventListener('sample', (e) => { all.push(JSON.parse(e.data)); if (all.length > 120) all.shift(); onSamples(all); });
  onLeave(() => source.close());
}

function fmtRate(r) { return r === null || r === undefined ? '' : (r >= 100 ? Math.round(r) : r.toFixed(r >= 10 ? 1 : 2)) + ' msg/s'; }

async function overview() {
  const topics = await api('topics');
  const total = topics.reduce((n, t) => n + BigInt(t.messages || '0'), 0n);
  const bytes = topics.reduce((n, t) => n + (t.bytes || 0), 0);
  const cells = new Map(topics.map((t) => [t.name, { messages: h('td', { class: 'num' }, t.messages), end: h('td', { class: 'num' }, t.endOffsets), endSpark: h('td', {}, spark([], 'end offsets')),
    rate: h('td', { class: 'num rate' }, ''), rateSpark: h('td', {}, spark([], 'messages per second')), bytesSpark: h('td', {}, info.dataDir ? spark([], 'bytes on disk') : '') }]));
  watchSamples('topics', (samples) => {
    for (const [name, c] of cells) {
      const mine = samples.map((x) => x.value[name]).filter((x) => x);
      if (mine.length === 0) continue;
      const lastOne = mine[mine.length - 1];
      c.messages.textContent = lastOne.messages;
      c.end.textContent = lastOne.endOffsets;
      c.endSpark.replaceChildren(spark(mine.map((x) => Number(x.endOffsets)), 'end offsets'));
      const rates = mine.map((x) => x.rate).filter((x) => x !== null);
      c.rate.textContent = fmtRate(lastOne.rate);
      c.rateSpark.replaceChildren(spark(rates, 'messages per second'));
      if (info.dataDir) c.bytesSpark.replaceChildren(spark(mine.map((x) => x.bytes || 0), 'bytes on disk'));
    }
  });
  const head = ['Topic', 'Partitions', 'Messages', 'End offsets', 'Bytes on disk', 'End offsets over time', 'Rate', 'Rate over time'].concat(info.dataDir ? ['Bytes over time'] : []);
  return [
    h('h1', {}, 'Topics'),
    h('div', { class: 'cards' },
      h('div', { class: 'card' }, h('b', {}, String(topics.length)), 'topics'),
      h('div', { class: 'card' }, h('b', {}, String(topics.reduce((n, t) => n + t.partitions, 0))), 'partitions'),
      h('div', { class: 'card' }, h('b', {}, total.toString()), 'messages'),
      info.dataDir ? h('div', { class: 'card' }, h('b', {}, fmtBytes(bytes)), 'on disk') : null),
    h('div', { class: 'scroll', id: 'topics-table' }, h('table', {},
      h('thead', {}, h('tr', {}, head.map((x, i) => h('th', { scope: 'col', class: [1, 2, 3, 4, 6].includes(i) ? 'num' : null }, x)))),
      h('tbody', {}, topics.length === 0 ? h('tr', {}, h('td', { colspan: head.length, class: 'muted' }, 'none')) : topics.map((t) => {
        const c = cells.get(t.name);
        return h('tr', { 'data-topic': t.name }, h('td', {}, h('a', { href: '#/topic/' + enc(t.name) }, t.name)), h('td', { class: 'num' }, t.partitions), c.messages, c.end,
          h('td', { class: 'num' }, t.bytes === null || t.bytes === undefined ? '' : fmtBytes(t.bytes)), c.endSpark, c.rate, c.rateSpark, info.dataDir ? c.bytesSpark : null);
      })))),
    h('p', { class: 'muted' }, 'Sampled by the server every ' + SAMPLE_MS / 1000 + ' s while this page is open.'),
  ];
}

/** A group's lag over time: the total and each partition's, sampled by the server while the page is open. */
function lagChart(samples) {
  const w = 640, hgt = 160, left = 44, bottom = 18;
  const keys = [...new Set(samples.flatMap((x) => Object.keys(x.value.partitions)))].slice(0, 8);
  const total = samples.map((x) => Number(x.value.totalLag));
  const max = Math.max(1, ...total);
  const t0 = samples.length ? samples[0].t : 0, t1 = samples.length ? samples[samples.length - 1].t : 1;
  const x = (t) => left + (t1 === t0 ? 0 : (t - t0) / (t1 - t0)) * (w - left - 6);
  const y = (v) => 6 + (1 - v / max) * (hgt - bottom - 6);
  const svg = svgEl('svg', { id: 'lag-chart', class: 'chart', viewBox: '0 0 ' + w + ' ' + hgt, role: 'img', 'data-points': samples.length,
    'aria-label': 'total lag over ' + samples.length + ' samples' + (samples.length ? ', now ' + total[total.length - 1] + ', max ' + max : '') });
  svg.append(svgEl('line', { x1: left, y1: y(0), x2: w - 6, y2: y(0), stroke: '#b9c2cc' }), svgEl('line', { x1: left, y1: 6, x2: left, y2: y(0), stroke: '#b9c2cc' }));
  const label = (tx, ty, text, anchor) => { const el = svgEl('text', { x: tx, y: ty, 'font-size': 11, fill: '#5c6670', 'text-anchor': anchor }); el.textContent = text; return el; };
  svg.append(label(left - 4, 14, String(max), 'end'), label(left - 4, y(0), '0', 'end'), label(w - 6, hgt - 4, samples.length ? Math.round((t1 - t0) / 1000) + ' s' : '', 'end'));
  const colours = ['#b3261e', '#1a7f37', '#8250df', '#bc4c00', '#0a7c86', '#953800', '#6e7781', '#cf222e'];
  const line = (vals, colour, width) => svgEl('polyline', { points: samples.map((s, i) => x(s.t).toFixed(1) + ',' + y(vals[i]).toFixed(1)).join(' '), fill: 'none', stroke: colour, 'stroke-width': width });
  if (samples.length) {
    keys.forEach((k, i) => svg.append(line(samples.map((s) => Number(s.value.partitions[k] || 0)), colours[i], 1)));
    svg.append(line(total, '#0b5cad', 2.5));
  }
  return h('div', {}, svg, h('p', { class: 'muted legend' }, h('span', { class: 'key', 'data-colour': 'total' }, 'total (thick blue)'), keys.length ? ' · partitions: ' + keys.map((k, i) => k + ' (' + ['red', 'green', 'purple', 'orange', 'teal', 'brown', 'grey', 'crimson'][i] + ')').join(', ') : ''));
}

async function topicPage(name) {
  const t = await api('topics/' + enc(name));
  const out = [crumbs(['Topics', '#/'], name), h('h1', {}, name)];
  out.push(h('h2', {}, 'Partitions'));
  out.push(table(['Partition', 'Leader', 'Start offset', 'End offset', 'Last stable offset', 'Messages', info.dataDir ? 'Log on disk' : ''],
    t.partitions.map((p) => [p.partition, p.leader, p.startOffset, p.endOffset, p.lastStableOffset === null ? '' : p.lastStableOffset, p.messages,
      info.dataDir ? h('a', { href: '#/disk/' + enc(name) + '/' + p.partition }, 'segments') : '']), [0, 1, 2, 3, 4, 5]));
  out.push(h('h2', {}, 'Messages'));
  out.push(browser(name, t.partitions));
  if (!info.readOnly) out.push(h('h2', {}, 'Live tail'), liveTail(name, t.partitions));
  if (!info.readOnly) {
    out.push(h('h2', {}, 'Produce a message'));
    out.push(produceForm(name, t.partitions));
    out.push(h('h2', {}, 'Configs'), configSection('topics/' + enc(name) + '/configs', null));
  }
  return out;
}

function configTable(cs) {
  return table(['Name', 'Value', 'Source'], cs.map((c) => [h('code', {}, c.name), c.sensitive ? '(sensitive)' : c.value === null ? h('span', { class: 'muted' }, 'null') : c.value, c.source + (c.readOnly ? ' · read-only' : '')]));
}

/** Effective configs and a form that edits them through IncrementalAlterConfigs (SET, or DELETE back to the default). */
function configSection(path, initial) {
  const list = h('div', { id: 'cfg-table' }, h('p', { class: 'muted' }, 'Loading configs…'));
  const names = h('datalist', { id: 'cfg-names' });
  const name = h('input', { id: 'cfg-name', name: 'config', list: 'cfg-names', size: 28, autocomplete: 'off' });
  const value = h('input', { id: 'cfg-value', name: 'value', size: 20 });
  const validate = h('input', { id: 'cfg-validate', type: 'checkbox', name: 'validateOnly' });
  const status = h('div', { id: 'cfg-status', 'aria-live': 'polite' });
  const show = (cs) => {
    list.replaceChildren(configTable(cs));
    names.replaceChildren(...cs.filter((c) => !c.readOnly).map((c) => h('option', { value: c.name })));
  };
  const send = async (remove) => {
    if (name.value.trim() === '') { status.replaceChildren(errorBox('name the config to change')); return; }
    try {
      const r = await api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ changes: [{ name: name.value.trim(), value: remove ? null : value.value }], validateOnly: validate.checked }) });
      status.replaceChildren(h('p', { class: 'good' }, (r.validateOnly ? 'Valid (not applied): ' : remove ? 'Returned to its default: ' : 'Set: ') + name.value.trim()));
      if (!r.validateOnly) show(r.configs);
    } catch (e) { status.replaceChildren(errorBox(e)); }
  };
  const form = h('form', { class: 'bar', onsubmit: (ev) => { ev.preventDefault(); send(false); } },
    h('label', {}, 'Config', name), names, h('label', {}, 'Value', value), h('label', { class: 'check' }, validate, 'Validate only'),
    h('button', { type: 'submit', id: 'cfg-set' }, 'Set'), h('button', { type: 'button', id: 'cfg-delete', class: 'secondary', onclick: () => send(true) }, 'Reset to default'));
  if (initial) show(initial); else api(path).then(show, (e) => list.replaceChildren(errorBox(e)));
  return h('div', {}, form, status, list);
}

function browser(topic, partitions) {
  const part = h('select', { id: 'mb-partition', name: 'partition' }, partitions.map((p) => h('option', { value: p.partition }, String(p.partition))));
  const from = h('select', { id: 'mb-from', name: 'from' }, ['beginning', 'offset', 'timestamp', 'end'].map((x) => h('option', { value: x }, x)));
  const at = h('input', { id: 'mb-at', name: 'at', placeholder: 'offset or ms / ISO time', size: 22 });
  const dir = h('select', { id: 'mb-dir', name: 'direction' }, h('option', { value: 'forward' }, 'oldest first'), h('option', { value: 'backward' }, 'newest first'));
  const limit = h('input', { id: 'mb-limit', name: 'limit', type: 'number', min: 1, max: 500, value: 50, size: 5 });
  const format = h('select', { id: 'mb-format', name: 'format' }, ['text', 'json', 'hex'].map((x) => h('option', { value: x }, x)));
  const fKey = h('input', { id: 'mb-key', name: 'key', size: 12, placeholder: 'contains' });
  const fValue = h('input', { id: 'mb-value', name: 'value', size: 12, placeholder: 'contains' });
  const fHeader = h('input', { id: 'mb-header', name: 'header', size: 12, placeholder: 'key or value contains' });
  const results = h('div', { id: 'mb-results', 'aria-live': 'polite' });
  let last = null;
  const draw = () => {
    if (!last) return;
    const f = format.value;
    results.replaceChildren(...[
      h('p', { class: 'muted', id: 'mb-summary' }, last.messages.length + ' messages ' + (last.direction === 'backward' ? 'newest first from offset ' : 'from offset ') + last.from + ' (partition start ' + last.startOffset + ', end ' + last.endOffset + (last.scanned !== last.messages.length ? ', ' + last.scanned + ' read to find them' : '') + ')' + (last.ms !== undefined ? ', ' + last.ms + ' ms' : '')),
      table(['Offset', 'Timestamp', 'Key', 'Value', 'Headers', 'Batch'], last.messages.map((m) => [
        m.offset, fmtTime(m.timestamp), render(m.key, f), render(m.value, f),
        m.headers.length === 0 ? h('span', { class: 'muted' }, 'none') : h('div', {}, m.headers.map((x) => h('div', { class: 'hdr' }, h('code', {}, x.key), ': ', render(x.value, f)))),
        h('span', { class: 'mono' }, m.batch.codec + ' · magic ' + m.batch.magic + ' · batch ' + m.batch.baseOffset + '–' + m.batch.lastOffset + (m.batch.producerId !== '-1' ? ' · pid ' + m.batch.producerId + '/' + m.batch.producerEpoch + ' seq ' + m.batch.baseSequence : '') + (m.batch.transactional ? ' · txn' : '')),
      ]), [0]),
      last.next ? h('button', { type: 'button', id: 'mb-next', class: 'secondary', onclick: () => load(null, last.next) }, last.direction === 'backward' ? 'Older messages' : 'Newer messages') : null].filter((x) => x));
  };
  const load = async (ev, spec) => {
    if (ev) ev.preventDefault();
    if (!spec) {
      spec = from.value;
      if (spec === 'offset') spec = 'offset:' + at.value.trim();
      if (spec === 'timestamp') {
        const v = at.value.trim();
        spec = 'timestamp:' + (/^\d+$/.test(v) ? v : String(Date.parse(v)));
      }
    }
    let query = 'partition=' + enc(part.value) + '&from=' + enc(spec) + '&limit=' + enc(limit.value) + '&direction=' + dir.value;
    for (const [k, input] of [['key', fKey], ['value', fValue], ['header', fHeader]]) if (input.value !== '') query += '&' + k + '=' + enc(input.value);
    const t0 = performance.now();
    try {
      last = await api('topics/' + enc(topic) + '/messages?' + query);
      last.ms = Math.round(performance.now() - t0);
      draw();
    } catch (e) { results.replaceChildren(errorBox(e)); }
  };
  format.addEventListener('change', draw);
  // newest first from the beginning would show nothing: it starts at the end
  dir.addEventListener('change', () => { if (dir.value === 'backward' && from.value === 'beginning') from.value = 'end'; });
  const form = h('form', { class: 'bar', onsubmit: load },
    h('label', {}, 'Partition', part), h('label', {}, 'From', from), h('label', {}, 'Offset / time', at), h('label', {}, 'Order', dir),
    h('label', {}, 'Limit', limit), h('label', {}, 'Key filter', fKey), h('label', {}, 'Value filter', fValue), h('label', {}, 'Header filter', fHeader),
    h('label', {}, 'Show as', format), h('button', { type: 'submit', id: 'mb-load' }, 'Load'));
  setTimeout(() => load(), 0);
  return h('div', {}, form, results);
}

/** New messages as they arrive (server-sent events from long-poll Fetches); stopped by the button or by leaving the page. */
function liveTail(topic, partitions) {
  const part = h('select', { id: 'tail-partition', name: 'partition' }, partitions.map((p) => h('option', { value: p.partition }, String(p.partition))));
  const status = h('span', { id: 'tail-status', class: 'muted', 'aria-live': 'polite' }, 'stopped');
  const body = h('tbody', {});
  const list = h('div', { class: 'scroll', id: 'tail-list' }, h('table', {}, h('thead', {}, h('tr', {}, ['Offset', 'Timestamp', 'Key', 'Value', 'Headers'].map((x) => h('th', { scope: 'col' }, x)))), body));
  let source = null;
  const stop = () => { if (source) { source.close(); source = null; } button.textContent = 'Start live tail'; status.textContent = 'stopped'; };
  const start = () => {
    source = new EventSource('/api/topics/' + enc(topic) + '/tail?partition=' + enc(part.value));
    button.textContent = 'Stop';
    status.textContent = 'connecting…';
    source.addEventListener('start', (e) => { status.textContent = 'waiting for messages after offset ' + (BigInt(JSON.parse(e.data).from) - 1n) + '…'; });
    source.addEventListener('messages', (e) => {
      const ms = JSON.parse(e.data);
      for (const m of ms) body.prepend(h('tr', {}, h('td', { class: 'num' }, m.offset), h('td', {}, fmtTime(m.timestamp)), h('td', {}, render(m.key, 'text')), h('td', {}, render(m.value, 'text')),
        h('td', {}, m.headers.map((x) => h('div', { class: 'hdr' }, h('code', {}, x.key), ': ', render(x.value, 'text'))))));
      while (body.children.length > 200) body.lastChild.remove();
      status.textContent = 'live: last offset ' + ms[ms.length - 1].offset;
    });
    source.addEventListener('error', (e) => {
      if (e.data) { status.textContent = JSON.parse(e.data).error; stop(); }
    });
  };
  const button = h('button', { type: 'button', id: 'tail-toggle', onclick: () => (source ? stop() : start()) }, 'Start live tail');
  onLeave(stop);
  return h('div', {}, h('div', { class: 'bar' }, h('label', {}, 'Partition', part), button, status), list);
}

function produceForm(topic, partitions) {
  const part = h('select', { id: 'pf-partition', name: 'partition' }, partitions.map((p) => h('option', { value: p.partition }, String(p.partition))));
  const key = h('input', { id: 'pf-key', name: 'key', size: 20 });
  const value = h('textarea', { id: 'pf-value', name: 'value' });
  const headers = h('textarea', { id: 'pf-headers', name: 'headers', placeholder: 'one header a line: key=value' });
  const status = h('div', { id: 'pf-status', 'aria-live': 'polite' });
  const submit = async (ev) => {
    ev.preventDefault();
    const hs = headers.value.split('\n').filter((l) => l.trim() !== '').map((l) => { const i = l.indexOf('='); return i < 0 ? { key: l, value: '' } : { key: l.slice(0, i), value: l.slice(i + 1) }; });
    try {
      const r = await api('topics/' + enc(topic) + '/messages', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ partition: Number(part.value), key: key.value === '' ? null : key.value, value: value.value, headers: hs }) });
      status.replaceChildren(h('p', { class: 'good' }, 'Produced at offset ' + r.offset + ' of partition ' + part.value));
    } catch (e) { status.replaceChildren(errorBox(e)); }
  };
  return h('div', {}, h('form', { class: 'bar', onsubmit: submit },
    h('label', {}, 'Partition', part), h('label', {}, 'Key', key), h('label', {}, 'Value', value), h('label', {}, 'Headers', headers),
    h('button', { type: 'submit', id: 'pf-send' }, 'Produce')), status);
}

async function groupsPage() {
  const gs = await api('groups');
  return [h('h1', {}, 'Consumer groups'), table(['Group', 'State', 'Protocol type'], gs.map((g) => [h('a', { href: '#/group/' + enc(g.groupId) }, g.groupId), g.state, g.protocolType]))];
}

async function groupPage(id) {
  const g = await api('groups/' + enc(id));
  const chart = h('div', { id: 'lag' }, lagChart([]));
  watchSamples('groups/' + enc(id), (samples) => chart.replaceChildren(lagChart(samples)));
  const out = [crumbs(['Consumer groups', '#/groups'], id), h('h1', {}, id),
    h('div', { class: 'cards' }, h('div', { class: 'card' }, h('b', { id: 'group-state' }, g.state), 'state'), h('div', { class: 'card' }, h('b', {}, g.protocol || '–'), 'protocol'),
      h('div', { class: 'card' }, h('b', {}, String(g.members.length)), 'members'), h('div', { class: 'card' }, h('b', {}, g.totalLag), 'total lag')),
    h('h2', {}, 'Members'), table(['Member', 'Client id', 'Host', 'Instance id'], g.members.map((m) => [h('code', {}, m.memberId), m.clientId, m.clientHost, m.groupInstanceId || ''])),
    h('h2', {}, 'Lag over time'), chart,
    h('h2', {}, 'Committed offsets and lag'), h('div', { id: 'group-offsets' }, table(['Topic', 'Partition', 'Committed', 'End offset', 'Lag', 'Metadata'],
      g.offsets.map((o) => [h('a', { href: '#/topic/' + enc(o.topic) }, o.topic), o.partition, o.committedOffset, o.endOffset, o.lag, o.metadata || '']), [1, 2, 3, 4]))];
  if (!info.readOnly) out.push(h('h2', {}, 'Reset offsets'), resetForm(id, g), h('h2', {}, 'Delete the group'), deleteForm(id));
  return out;
}

/** As kafka-consumer-groups.sh --reset-offsets: a dry run (the plan) first, then --execute; only for an inactive group. */
function resetForm(id, g) {
  const topics = [...new Set(g.offsets.map((o) => o.topic))];
  const topic = h('input', { id: 'rs-topic', name: 'topic', size: 18, list: 'rs-topics', placeholder: topics.length ? 'all with offsets' : 'topic' });
  const known = h('datalist', { id: 'rs-topics' }, topics.map((t) => h('option', { value: t })));
  const to = h('select', { id: 'rs-to', name: 'to' }, ['earliest', 'latest', 'offset', 'timestamp'].map((x) => h('option', { value: x }, x)));
  const at = h('input', { id: 'rs-at', name: 'at', size: 20, placeholder: 'offset or ms / ISO time' });
  const out = h('div', { id: 'rs-result', 'aria-live': 'polite' });
  const run = async (execute) => {
    let spec = to.value;
    if (spec === 'offset') spec = 'offset:' + at.value.trim();
    if (spec === 'timestamp') { const v = at.value.trim(); spec = 'timestamp:' + (/^\d+$/.test(v) ? v : String(Date.parse(v))); }
    try {
      const r = await api('groups/' + enc(id) + '/reset-offsets', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ topics: topic.value.trim() === '' ? null : [topic.value.trim()], to: spec, execute }) });
      out.replaceChildren(h('p', { class: r.executed ? 'good' : 'muted' }, r.executed ? 'Offsets reset (executed).' : 'Dry run: nothing committed yet. Execute to commit these offsets.'),
        table(['Topic', 'Partition', 'Current offset', 'New offset'], r.partitions.map((p) => [p.topic, p.partition, p.currentOffset === null ? '–' : p.currentOffset, p.newOffset]), [1, 2, 3]));
      if (r.executed) setTimeout(route, 0);
    } catch (e) { out.replaceChildren(errorBox(e)); }
  };
  return h('div', {}, h('form', { class: 'bar', onsubmit: (ev) => { ev.preventDefault(); run(false); } },
    h('label', {}, 'Topic', topic), known, h('label', {}, 'To', to), h('label', {}, 'Offset / time', at),
    h('button', { type: 'submit', id: 'rs-preview' }, 'Preview (dry run)'), h('button', { type: 'button', id: 'rs-execute', class: 'danger', onclick: () => run(true) }, 'Execute')), out);
}

function deleteForm(id) {
  const out = h('div', { id: 'gd-result', 'aria-live': 'polite' });
  const del = async () => {
    if (!confirm('Delete the consumer group ' + id + ' and its committed offsets?')) return;
    try {
      await api('groups/' + enc(id), { method: 'DELETE' });
      out.replaceChildren(h('p', { class: 'good' }, 'Group ' + id + ' deleted.'));
    } catch (e) { out.replaceChildren(errorBox(e)); }
  };
  return h('div', {}, h('p', { class: 'muted' }, 'DeleteGroups: only a group with no members; its committed offsets go with it.'),
    h('button', { type: 'button', id: 'gd-delete', class: 'danger', onclick: del }, 'Delete group'), out);
}

/** The broker: the cluster's brokers, listeners, configs (editable), API versions served and, in serve mode, requests answered. */
async function brokerPage(id) {
  const b = await api('brokers' + (id !== undefined ? '/' + enc(id) : ''));
  const maxBucket = Math.max(1, ...(b.requests || []).flatMap((r) => r.histogram));
  const bars = (hist) => h('span', { class: 'hist', role: 'img', 'aria-label': 'latency histogram: ' + hist.map((n, i) => (i < b.histogramBucketsMs.length ? '≤' + b.histogramBucketsMs[i] : '>' + b.histogramBucketsMs.at(-1)) + ' ms: ' + n).filter((x) => !/: 0$/.test(x)).join(', ') },
    hist.map((n) => { const bar = h('i', {}); bar.style.height = (n === 0 ? 0 : Math.max(2, Math.round(Math.log2(1 + n) / Math.log2(1 + maxBucket) * 18))) + 'px'; return bar; }));
  return [h('h1', {}, 'Broker ' + b.nodeId),
    h('div', { class: 'cards' }, h('div', { class: 'card' }, h('b', {}, b.clusterId || '–'), 'cluster id'), h('div', { class: 'card' }, h('b', {}, String(b.controllerId)), 'controller'), h('div', { class: 'card' }, h('b', {}, String(b.brokers.length)), 'brokers')),
    h('h2', {}, 'Brokers'), table(['Node', 'Host', 'Port', 'Rack'], b.brokers.map((x) => [h('a', { href: '#/broker/' + x.nodeId }, String(x.nodeId)), x.host, x.port, x.rack || '']), [0, 2]),
    h('h2', {}, 'Listeners'), h('div', { id: 'broker-listeners' }, table(['Setting', 'Value'], b.listeners.map((l) => [h('code', {}, l.name), l.value === null ? h('span', { class: 'muted' }, 'null') : l.value]))),
    h('h2', {}, 'Requests answered'), b.requests === null ? h('p', { class: 'muted' }, 'Request counts are the console’s own broker’s (serve mode); Kafka publishes them over JMX, not the protocol.')
      : h('div', { id: 'broker-requests' }, h('p', { class: 'muted' }, 'Since ' + fmtTime(b.requestsSince) + '; latency buckets ≤' + b.histogramBucketsMs.join(', ≤') + ' ms and over.'),
        table(['API', 'Requests', 'Per second', 'Mean ms', 'p50 ms', 'p99 ms', 'Latency histogram'], b.requests.map((r) => [r.name, r.count, (r.count / Math.max(1, (Date.now() - b.requestsSince) / 1000)).toFixed(2), r.meanMs.toFixed(2), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), bars(r.histogram)]), [1, 2, 3, 4, 5])),
    h('h2', {}, 'API versions served'), h('div', { id: 'broker-versions' }, table(['Key', 'API', 'Min', 'Max'], b.apiVersions.map((v) => [v.apiKey, v.name, v.minVersion, v.maxVersion]), [0, 2, 3])),
    h('h2', {}, 'Configs'), configSection('brokers/' + b.nodeId + '/configs', b.configs)];
}

function fmtAge(ms) {
  if (ms === null || ms === undefined) return '';
  const s = Math.floor(ms / 1000);
  return s < 60 ? s + ' s' : s < 3600 ? Math.floor(s / 60) + ' min ' + (s % 60) + ' s' : Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}

/** Transactions (ListTransactions, DescribeTransactions) and producers (DescribeProducers), as kafka-transactions.sh shows them. */
async function transactionsPage(topic) {
  const [txns, prods] = await Promise.all([api('transactions'), api('producers' + (topic ? '?topic=' + enc(topic) : ''))]);
  const open = txns.filter((t) => t.open);
  return [h('h1', {}, 'Transactions and producers'),
    h('div', { class: 'cards' }, h('div', { class: 'card' }, h('b', { id: 'txn-open' }, String(open.length)), 'open transactions'), h('div', { class: 'card' }, h('b', {}, String(txns.length)), 'transactional ids'),
      h('div', { class: 'card' }, h('b', {}, String(new Set(prods.producers.map((p) => p.producerId)).size)), 'active producer ids')),
    h('h2', {}, 'Transactions'),
    h('div', { id: 'txn-table' }, table(['Transactional id', 'State', 'Producer id', 'Epoch', 'Age', 'Timeout', 'Partitions'], txns.map((t) => [
      h('code', {}, t.transactionalId), h('span', { class: t.open ? 'bad' : null }, t.state + (t.error ? ' (' + t.error + ')' : '')), t.producerId, t.producerEpoch, t.open ? fmtAge(t.ageMs) : '',
      t.timeoutMs < 0 ? '' : fmtAge(t.timeoutMs), t.partitions.map((x) => x.topic + ' [' + x.partitions.join(', ') + ']').join('; ')]), [2, 3])),
    h('h2', {}, 'Producers' + (topic ? ' of ' + topic : '')),
    prods.errors.length ? errorBox(prods.errors.join('\n')) : null,
    h('div', { id: 'producer-table' }, table(['Partition', 'Producer id', 'Epoch', 'Last sequence', 'Last write', 'Coordinator epoch', 'Open transaction from'], prods.producers.map((p) => [
      h('a', { href: '#/topic/' + enc(p.topic) }, p.topic + '-' + p.partition), p.producerId, p.producerEpoch, p.lastSequence, fmtTime(p.lastTimestamp), p.coordinatorEpoch < 0 ? '' : p.coordinatorEpoch, p.currentTxnStartOffset === '-1' ? '' : p.currentTxnStartOffset]), [1, 2, 3, 5, 6])),
    prods.truncated ? h('p', { class: 'muted' }, 'Only the first partitions were asked.') : null];
}

async function diskPage() {
  const topics = await api('disk');
  return [h('h1', {}, 'Log on disk'), h('p', { class: 'muted' }, info.dataDir),
    table(['Partition', 'Segments', 'Bytes', 'Start offset', 'End offset'], topics.flatMap((t) => t.partitions.map((p) => [
      h('a', { href: '#/disk/' + enc(t.name) + '/' + p.partition }, t.name + '-' + p.partition), p.segments, fmtBytes(p.bytes), p.startOffset || '', p.endOffset || ''])), [1, 2, 3, 4])];
}

/** Kafka's read path for one offset, step by step: segment, index binary search, scan to the batch. */
function lookupForm(topic, p) {
  const input = h('input', { id: 'lk-offset', name: 'offset', inputmode: 'numeric', size: 14 });
  const out = h('div', { id: 'lk-steps', 'aria-live': 'polite' });
  const run = async (ev) => {
    ev.preventDefault();
    try {
      const r = await api('disk/' + enc(topic) + '/' + p + '/lookup?offset=' + enc(input.value.trim()));
      const steps = [h('li', {}, 'Segment: the greatest base offset at or below ' + r.offset + ' among [' + r.segments.join(', ') + '] is ' + (r.segment === null ? 'none (the offset is below the log)' : r.segment))];
      if (r.segment !== null) {
        r.probes.forEach((x) => steps.push(h('li', {}, 'Index probe: slots ' + x.lo + '..' + x.hi + ', middle slot ' + x.mid + ' holds offset ' + x.entryOffset + ' at position ' + x.position + ': ' + (x.goes === 'found' ? 'found' : 'search ' + x.goes))));
        steps.push(h('li', {}, r.indexEntry === null ? 'Index: no entry at or below the offset, scan from position 0' : 'Index: slot ' + r.indexEntry.slot + ', offset ' + r.indexEntry.offset + ', start scanning at position ' + r.indexEntry.position));
        steps.push(h('li', {}, 'Scan: ' + r.scanned.length + ' batch header(s) read (' + r.scanned.map((x) => x.position + '→' + x.lastOffset).join(', ') + ')'));
        steps.push(h('li', {}, r.batch === null ? 'No batch reaches the offset: it is past the segment’s end' : h('span', {}, 'Batch at position ', h('a', { href: '#/disk/' + enc(topic) + '/' + p + '/' + r.segment + '/' + r.batch.position }, String(r.batch.position)), ' holds offsets up to ' + r.batch.lastOffset)));
      }
      out.replaceChildren(h('ol', {}, steps));
    } catch (e) { out.replaceChildren(errorBox(e)); }
  };
  return h('div', {}, h('form', { class: 'bar', onsubmit: run }, h('label', {}, 'Offset', input), h('button', { type: 'submit', id: 'lk-go' }, 'Find')), out);
}

async function segmentsPage(topic, p) {
  const segs = await api('disk/' + enc(topic) + '/' + p + '/segments');
  return [crumbs(['Log on disk', '#/disk'], topic + '-' + p), h('h1', {}, topic + '-' + p + ': segments'),
    h('h2', {}, 'Find an offset as Kafka’s read path does'), lookupForm(topic, p), h('h2', {}, 'Segments'),
    table(['Base offset', 'Size', 'Batches', 'Offsets', 'Max timestamp', 'Offset index entries', 'Time index entries', ''],
      segs.map((s) => [h('a', { href: '#/disk/' + enc(topic) + '/' + p + '/' + s.baseOffset }, s.baseOffset), fmtBytes(s.sizeInBytes), s.batches,
        s.firstOffset === null ? 'empty' : s.firstOffset + '–' + (BigInt(s.nextOffset) - 1n), s.maxTimestamp === null ? '' : fmtTime(s.maxTimestamp), s.offsetIndexEntries, s.timeIndexEntries, s.active ? 'active' : '']), [0, 1, 2, 5, 6])];
}

/** Batches along the segment's bytes, with the offset index entries marked under them: the index is sparse. */
function sparseIndexPicture(seg) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'sparse');
  svg.setAttribute('viewBox', '0 0 1000 44');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', seg.batches.length + ' batches, ' + seg.offsetIndex.length + ' offset index entries');
  const size = Math.max(1, seg.sizeInBytes);
  for (const b of seg.batches) {
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('x', String(b.position / size * 1000)); r.setAttribute('y', '2');
    r.setAttribute('width', String(Math.max(0.6, b.sizeInBytes / size * 1000 - 0.4))); r.setAttribute('height', '20');
    r.setAttribute('fill', '#8fb8e6');
    svg.append(r);
  }
  for (const e of seg.offsetIndex) {
    const l = document.createElementNS(ns, 'rect');
    l.setAttribute('x', String(e.position / size * 1000)); l.setAttribute('y', '24');
    l.setAttribute('width', '2'); l.setAttribute('height', '18'); l.setAttribute('fill', '#b3261e');
    svg.append(l);
  }
  return h('div', {}, svg, h('p', { class: 'muted' }, 'Blue: batches along the file; red: offset index entries (one per index.interval.bytes).'));
}

async function segmentPage(topic, p, base) {
  const seg = await api('disk/' + enc(topic) + '/' + p + '/segments/' + base);
  const link = (pos) => '#/disk/' + enc(topic) + '/' + p + '/' + base + '/' + pos;
  return [crumbs(['Log on disk', '#/disk'], ['' + topic + '-' + p, '#/disk/' + enc(topic) + '/' + p], 'segment ' + base),
    h('h1', {}, 'Segment ' + base + ' of ' + topic + '-' + p), h('p', { class: 'muted' }, fmtBytes(seg.sizeInBytes) + ', ' + seg.batches.length + ' batches' + (seg.truncated ? ' (first ones shown)' : '')),
    sparseIndexPicture(seg),
    h('h2', {}, 'Batches'), table(['Position', 'Size', 'Magic', 'Base offset', 'Last offset', 'Max timestamp'],
      seg.batches.map((b) => [h('a', { href: link(b.position) }, String(b.position)), b.sizeInBytes, b.magic, b.baseOffset === null ? '' : b.baseOffset, b.lastOffset, fmtTime(b.maxTimestamp)]), [0, 1, 2, 3, 4]),
    h('h2', {}, 'Offset index'), table(['Offset', 'Position'], seg.offsetIndex.map((e) => [e.offset, h('a', { href: link(e.position) }, String(e.position))]), [0, 1]),
    h('h2', {}, 'Time index'), table(['Timestamp', 'Offset'], seg.timeIndex.map((e) => [fmtTime(e.timestamp) + ' (' + e.timestamp + ')', e.offset]), [1])];
}

async function batchPage(topic, p, base, pos) {
  const b = await api('disk/' + enc(topic) + '/' + p + '/segments/' + base + '/batches/' + pos);
  const bytes = b.hex.match(/../g) || [];
  const owner = new Array(bytes.length).fill(-1);
  b.fields.forEach((f, i) => { for (let k = f.offset; k < f.offset + f.size && k < owner.length; k++) owner[k] = i; });
  const dump = h('div', { class: 'hex', id: 'batch-hex', 'aria-label': 'batch bytes' }, bytes.map((x, k) => h('span', { class: owner[k] < 0 ? 'rec' : 'f' + (owner[k] % 8), title: owner[k] < 0 ? 'records' : b.fields[owner[k]].name }, x)));
  return [crumbs(['Log on disk', '#/disk'], [topic + '-' + p, '#/disk/' + enc(topic) + '/' + p], ['segment ' + base, '#/disk/' + enc(topic) + '/' + p + '/' + base], 'position ' + pos),
    h('h1', {}, 'Batch at position ' + pos + ' (magic ' + b.magic + ', ' + b.sizeInBytes + ' bytes)'),
    h('p', {}, 'CRC (' + b.crc.algorithm + ' over bytes ' + b.crc.coveredFrom + '..end): stored ' + b.crc.stored + ', recomputed ' + b.crc.computed + ' ',
      b.crc.valid ? h('span', { class: 'good', id: 'crc-ok' }, 'match') : h('span', { class: 'bad', id: 'crc-bad' }, 'MISMATCH')),
    h('h2', {}, 'Header fields'),
    h('div', { id: 'batch-fields' }, table(['Field', 'Bytes', 'Value', 'Hex'], b.fields.map((f, i) => [h('span', { class: 'f' + (i % 8) }, f.name), f.offset + '..' + (f.offset + f.size - 1), f.value, h('code', {}, f.hex)]))),
    h('h2', {}, 'Attributes'), table(['Bit', 'Value'], b.attributes.map((a) => [a.bit, a.value])),
    h('h2', {}, 'Bytes' + (b.sizeInBytes > bytes.length ? ' (first ' + bytes.length + ')' : '')), dump,
    h('p', { class: 'muted legend' }, 'Coloured as the header fields above; grey: the records.'),
    h('p', { class: 'muted' }, 'Codec ' + b.meta.codec + ', offsets ' + b.meta.baseOffset + '–' + b.meta.lastOffset + (b.records === null ? '' : ', ' + b.records + ' records'))];
}

async function route() {
  for (const f of cleanups.splice(0)) f();
  const parts = location.hash.replace(/^#\/?/, '').split('/').map((x) => decodeURIComponent(x));
  let view;
  try {
    if (parts[0] === '' || parts[0] === undefined) view = await overview();
    else if (parts[0] === 'topic' && parts[1] !== undefined) view = await topicPage(parts[1]);
    else if (parts[0] === 'groups') view = await groupsPage();
    else if (parts[0] === 'broker') view = await brokerPage(parts[1]);
    else if (parts[0] === 'transactions') view = await transactionsPage(parts[1]);
    else if (parts[0] === 'group' && parts[1] !== undefined) view = await groupPage(parts[1]);
    else if (parts[0] === 'disk' && parts.length === 1) view = await diskPage();
    else if (parts[0] === 'disk' && parts.length === 3) view = await segmentsPage(parts[1], parts[2]);
    else if (parts[0] === 'disk' && parts.length === 4) view = await segmentPage(parts[1], parts[2], parts[3]);
    else if (parts[0] === 'disk' && parts.length === 5) view = await batchPage(parts[1], parts[2], parts[3], parts[4]);
    else view = [h('h1', {}, 'Not found')];
  } catch (e) { view = [errorBox(e)]; }
  main.replaceChildren(...[view].flat().filter((x) => x !== null && x !== undefined && x !== false));
  document.title = 'kafkalite console' + (parts[1] ? ' – ' + parts[1] : '');
  main.setAttribute('data-ready', location.hash || '#/');
}

async function start() {
  try { info = await api('info'); } catch (e) { main.replaceChildren(errorBox(e)); return; }
  document.getElementById('mode').textContent = info.mode === 'offline' ? 'offline, read-only: ' + info.dataDir : info.mode === 'serve' ? 'broker ' + info.bootstrap + ' · data ' + info.dataDir : 'cluster ' + info.bootstrap;
  if (info.mode === 'offline') { document.getElementById('nav-groups').remove(); document.getElementById('nav-broker').remove(); document.getElementById('nav-txn').remove(); }
  if (!info.dataDir) document.getElementById('nav-disk').remove();
  window.addEventListener('hashchange', route);
  await route();
}

start();
