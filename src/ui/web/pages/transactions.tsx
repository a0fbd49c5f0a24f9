/** Transactions (ListTransactions, DescribeTransactions) and producers (DescribeProducers), as kafka-transactions.sh shows them. */
import type { JSX } from 'preact';
import { api, enc, type Producers, type Transaction } from '../api.js';
import { fmtAge, fmtTime } from '../format.js';
import { Card, ErrorBox, Table } from '../ui.js';

export async function transactionsPage(topic: string | undefined): Promise<JSX.Element> {
  const [txns, prods] = await Promise.all([api<Transaction[]>('transactions'), api<Producers>('producers' + (topic ? '?topic=' + enc(topic) : ''))]);
  const open = txns.filter((t) => t.open);
  return (
    <>
      <h1>Transactions and producers</h1>
      <div class="cards">
        <Card label="open transactions" id="txn-open">{open.length}</Card>
        <Card label="transactional ids">{txns.length}</Card>
        <Card label="active producer ids">{new Set(prods.producers.map((p) => p.producerId)).size}</Card>
      </div>
      <h2>Transactions</h2>
      <div id="txn-table">
        <Table headers={['Transactional id', 'State', 'Producer id', 'Epoch', 'Age', 'Timeout', 'Partitions']} numeric={[2, 3]}
          rows={txns.map((t) => [<code>{t.transactionalId}</code>, <span class={t.open ? 'bad' : undefined}>{t.state + (t.error ? ' (' + t.error + ')' : '')}</span>, t.producerId, t.producerEpoch,
            t.open ? fmtAge(t.ageMs) : '', t.timeoutMs < 0 ? '' : fmtAge(t.timeoutMs), t.partitions.map((x) => x.topic + ' [' + x.partitions.join(', ') + ']').join('; ')])} />
      </div>
      <h2>Producers{topic ? ' of ' + topic : ''}</h2>
      {prods.errors.length > 0 && <ErrorBox error={prods.errors.join('\n')} />}
      <div id="producer-table">
        <Table headers={['Partition', 'Producer id', 'Epoch', 'Last sequence', 'Last write', 'Coordinator epoch', 'Open transaction from']} numeric={[1, 2, 3, 5, 6]}
          rows={prods.producers.map((p) => [<a href={'#/topic/' + enc(p.topic)}>{p.topic + '-' + p.partition}</a>, p.producerId, p.producerEpoch, p.lastSequence, fmtTime(p.lastTimestamp),
            p.coordinatorEpoch < 0 ? '' : p.coordinatorEpoch, p.currentTxnStartOffset === '-1' ? '' : p.currentTxnStartOffset])} />
      </div>
      {prods.truncated && <p class="muted">Only the first partitions were asked.</p>}
    </>
  );
}
