/** Consumer groups: the list, and a group's members, committed offsets, lag over time, offset reset and deletion. */
import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, enc, send, type Group, type GroupRow, type LagSample, type ResetPlan } from '../api.js';
import { startSpec } from '../format.js';
import { LagChart } from '../lag-chart.js';
import { Card, Crumbs, ErrorBox, session, Table, useSamples } from '../ui.js';
import { reload } from '../router.js';

export async function groupsPage(): Promise<JSX.Element> {
  const gs = await api<GroupRow[]>('groups');
  return (
    <>
      <h1>Consumer groups</h1>
      <Table headers={['Group', 'State', 'Protocol type']} rows={gs.map((g) => [<a href={'#/group/' + enc(g.groupId)}>{g.groupId}</a>, g.state, g.protocolType])} />
    </>
  );
}

export async function groupPage(id: string): Promise<JSX.Element> {
  return <GroupView id={id} g={await api<Group>('groups/' + enc(id))} />;
}

function GroupView(props: { id: string; g: Group }): JSX.Element {
  const { id, g } = props;
  const samples = useSamples<LagSample>('groups/' + enc(id));
  return (
    <>
      <Crumbs links={[['Consumer groups', '#/groups']]} here={id} />
      <h1>{id}</h1>
      <div class="cards">
        <Card label="state" id="group-state">{g.state}</Card>
        <Card label="protocol">{g.protocol || '–'}</Card>
        <Card label="members">{g.members.length}</Card>
        <Card label="total lag">{g.totalLag}</Card>
      </div>
      <h2>Members</h2>
      <Table headers={['Member', 'Client id', 'Host', 'Instance id']} rows={g.members.map((m) => [<code>{m.memberId}</code>, m.clientId, m.clientHost, m.groupInstanceId || ''])} />
      <h2>Lag over time</h2>
      <div id="lag"><LagChart samples={samples} /></div>
      <h2>Committed offsets and lag</h2>
      <Table id="group-offsets" headers={['Topic', 'Partition', 'Committed', 'End offset', 'Lag', 'Metadata']} numeric={[1, 2, 3, 4]}
        rows={g.offsets.map((o) => [<a href={'#/topic/' + enc(o.topic)}>{o.topic}</a>, o.partition, o.committedOffset, o.endOffset, o.lag, o.metadata || ''])} />
      {!session.info.readOnly && <><h2>Reset offsets</h2><ResetForm id={id} g={g} /><h2>Delete the group</h2><DeleteForm id={id} /></>}
    </>
  );
}

/** As kafka-consumer-groups.sh --reset-offsets: a dry run (the plan) first, then --execute; only for an inactive group. */
function ResetForm(props: { id: string; g: Group }): JSX.Element {
  const topics = [...new Set(props.g.offsets.map((o) => o.topic))];
  const topic = useRef<HTMLInputElement>(null);
  const to = useRef<HTMLSelectElement>(null);
  const at = useRef<HTMLInputElement>(null);
  const [result, setResult] = useState<{ plan: ResetPlan } | { error: unknown } | null>(null);
  const run = async (execute: boolean): Promise<void> => {
    const t = topic.current!.value.trim();
    try {
      const plan = await send<ResetPlan>('groups/' + enc(props.id) + '/reset-offsets', { topics: t === '' ? null : [t], to: startSpec(to.current!.value, at.current!.value), execute });
      setResult({ plan });
      if (plan.executed) setTimeout(reload, 0);
    } catch (error) {
      setResult({ error });
    }
  };
  return (
    <div>
      <form class="bar" onSubmit={(ev) => { ev.preventDefault(); void run(false); }}>
        <label>Topic<input ref={topic} id="rs-topic" name="topic" size={18} list="rs-topics" placeholder={topics.length ? 'all with offsets' : 'topic'} /></label>
        <datalist id="rs-topics">{topics.map((t) => <option value={t} />)}</datalist>
        <label>To<select ref={to} id="rs-to" name="to">{['earliest', 'latest', 'offset', 'timestamp'].map((x) => <option value={x}>{x}</option>)}</select></label>
        <label>Offset / time<input ref={at} id="rs-at" name="at" size={20} placeholder="offset or ms / ISO time" /></label>
        <button type="submit" id="rs-preview">Preview (dry run)</button>
        <button type="button" id="rs-execute" class="danger" onClick={() => void run(true)}>Execute</button>
      </form>
      <div id="rs-result" aria-live="polite">
        {result && ('error' in result ? <ErrorBox error={result.error} /> : (
          <>
            <p class={result.plan.executed ? 'good' : 'muted'}>{result.plan.executed ? 'Offsets reset (executed).' : 'Dry run: nothing committed yet. Execute to commit these offsets.'}</p>
            <Table headers={['Topic', 'Partition', 'Current offset', 'New offset']} numeric={[1, 2, 3]} rows={result.plan.partitions.map((p) => [p.topic, p.partition, p.currentOffset ?? '–', p.newOffset])} />
          </>
        ))}
      </div>
    </div>
  );
}

function DeleteForm(props: { id: string }): JSX.Element {
  const [result, setResult] = useState<{ done: true } | { error: unknown } | null>(null);
  const del = async (): Promise<void> => {
    if (!confirm('Delete the consumer group ' + props.id + ' and its committed offsets?')) return;
    try {
      await api('groups/' + enc(props.id), { method: 'DELETE' });
      setResult({ done: true });
    } catch (error) {
      setResult({ error });
    }
  };
  return (
    <div>
      <p class="muted">DeleteGroups: only a group with no members; its committed offsets go with it.</p>
      <button type="button" id="gd-delete" class="danger" onClick={() => void del()}>Delete group</button>
      <div id="gd-result" aria-live="polite">{result && ('error' in result ? <ErrorBox error={result.error} /> : <p class="good">Group {props.id} deleted.</p>)}</div>
    </div>
  );
}
