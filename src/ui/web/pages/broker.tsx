/** The broker: the cluster's brokers, listeners, configs (editable), API versions served and, in serve mode, requests answered. */
import type { JSX } from 'preact';
import { api, enc, type Broker } from '../api.js';
import { fmtTime } from '../format.js';
import { Card, Table } from '../ui.js';
import { ConfigSection } from './configs.js';

export async function brokerPage(id: string | undefined): Promise<JSX.Element> {
  const b = await api<Broker>('brokers' + (id !== undefined ? '/' + enc(id) : ''));
  const maxBucket = Math.max(1, ...(b.requests ?? []).flatMap((r) => r.histogram));
  const bucket = (i: number): string => (i < b.histogramBucketsMs.length ? '≤' + b.histogramBucketsMs[i] : '>' + b.histogramBucketsMs.at(-1)) + ' ms';
  const bars = (hist: number[]): JSX.Element => (
    <span class="hist" role="img" aria-label={'latency histogram: ' + hist.map((n, i) => bucket(i) + ': ' + n).filter((x) => !/: 0$/.test(x)).join(', ')}>
      {hist.map((n) => <i style={{ height: (n === 0 ? 0 : Math.max(2, Math.round((Math.log2(1 + n) / Math.log2(1 + maxBucket)) * 18))) + 'px' }} />)}
    </span>
  );
  const seconds = Math.max(1, (Date.now() - b.requestsSince) / 1000);
  return (
    <>
      <h1>Broker {b.nodeId}</h1>
      <div class="cards">
        <Card label="cluster id">{b.clusterId || '–'}</Card>
        <Card label="controller">{b.controllerId}</Card>
        <Card label="brokers">{b.brokers.length}</Card>
      </div>
      <h2>Brokers</h2>
      <Table headers={['Node', 'Host', 'Port', 'Rack']} numeric={[0, 2]} rows={b.brokers.map((x) => [<a href={'#/broker/' + x.nodeId}>{x.nodeId}</a>, x.host, x.port, x.rack || ''])} />
      <h2>Listeners</h2>
      <div id="broker-listeners"><Table headers={['Setting', 'Value']} rows={b.listeners.map((l) => [<code>{l.name}</code>, l.value === null ? <span class="muted">null</span> : l.value])} /></div>
      <h2>Requests answered</h2>
      {b.requests === null ? <p class="muted">Request counts are the console’s own broker’s (serve mode); Kafka publishes them over JMX, not the protocol.</p> : (
        <div id="broker-requests">
          <p class="muted">Since {fmtTime(b.requestsSince)}; latency buckets ≤{b.histogramBucketsMs.join(', ≤')} ms and over.</p>
          <Table headers={['API', 'Requests', 'Per second', 'Mean ms', 'p50 ms', 'p99 ms', 'Latency histogram']} numeric={[1, 2, 3, 4, 5]}
            rows={b.requests.map((r) => [r.name, r.count, (r.count / seconds).toFixed(2), r.meanMs.toFixed(2), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), bars(r.histogram)])} />
        </div>
      )}
      <h2>API versions served</h2>
      <div id="broker-versions"><Table headers={['Key', 'API', 'Min', 'Max']} numeric={[0, 2, 3]} rows={b.apiVersions.map((v) => [v.apiKey, v.name, v.minVersion, v.maxVersion])} /></div>
      <h2>Configs</h2>
      <ConfigSection path={'brokers/' + b.nodeId + '/configs'} initial={b.configs} />
    </>
  );
}
