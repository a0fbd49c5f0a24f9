/** The overview: every topic with its partitions, messages, bytes and rates, each with a sparkline sampled by the server. */
import type { JSX } from 'preact';
import { api, enc, type TopicRow, type TopicSample } from '../api.js';
import { fmtBytes, fmtRate } from '../format.js';
import { Card, SAMPLE_MS, session, Spark, useSamples } from '../ui.js';

export async function overviewPage(): Promise<JSX.Element> {
  return <Overview topics={await api<TopicRow[]>('topics')} />;
}

function Overview(props: { topics: TopicRow[] }): JSX.Element {
  const { topics } = props;
  const disk = session.info.dataDir !== null;
  const samples = useSamples<Record<string, TopicSample>>('topics');
  const total = topics.reduce((n, t) => n + BigInt(t.messages || '0'), 0n);
  const bytes = topics.reduce((n, t) => n + (t.bytes || 0), 0);
  const head = ['Topic', 'Partitions', 'Messages', 'End offsets', 'Bytes on disk', 'End offsets over time', 'Rate', 'Rate over time'].concat(disk ? ['Bytes over time'] : []);
  return (
    <>
      <h1>Topics</h1>
      <div class="cards">
        <Card label="topics">{topics.length}</Card>
        <Card label="partitions">{topics.reduce((n, t) => n + t.partitions, 0)}</Card>
        <Card label="messages">{total.toString()}</Card>
        {disk && <Card label="on disk">{fmtBytes(bytes)}</Card>}
      </div>
      <div class="scroll" id="topics-table">
        <table>
          <thead><tr>{head.map((x, i) => <th scope="col" class={[1, 2, 3, 4, 6].includes(i) ? 'num' : undefined}>{x}</th>)}</tr></thead>
          <tbody>
            {topics.length === 0 ? <tr><td colSpan={head.length} class="muted">none</td></tr> : topics.map((t) => {
              const mine = samples.map((x) => x.value[t.name]).filter((x): x is TopicSample => x !== undefined);
              const last = mine[mine.length - 1];
              return (
                <tr data-topic={t.name} key={t.name}>
                  <td><a href={'#/topic/' + enc(t.name)}>{t.name}</a></td>
                  <td class="num">{t.partitions}</td>
                  <td class="num">{last ? last.messages : t.messages}</td>
                  <td class="num">{last ? last.endOffsets : t.endOffsets}</td>
                  <td class="num">{t.bytes === null || t.bytes === undefined ? '' : fmtBytes(t.bytes)}</td>
                  <td><Spark values={mine.map((x) => Number(x.endOffsets))} label="end offsets" /></td>
                  <td class="num rate">{last ? fmtRate(last.rate) : ''}</td>
                  <td><Spark values={mine.map((x) => x.rate).filter((x): x is number => x !== null)} label="messages per second" /></td>
                  {disk && <td><Spark values={mine.map((x) => x.bytes || 0)} label="bytes on disk" /></td>}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p class="muted">Sampled by the server every {SAMPLE_MS / 1000} s while this page is open.</p>
    </>
  );
}
