import { Broker } from '/work/u6/dist/src/broker/broker.js';
import { UiServer } from '/work/u6/dist/src/ui/server.js';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
const require = createRequire('/work/u6/package.json');
const { Kafka, logLevel } = require('kafkajs');
const dataDir = mkdtempSync('/tmp/kl-ui-measure-');
const b = await Broker.start({ dataDir, ui: true, config: { 'log.segment.bytes': String(16 << 20) } });
const kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
const p = kafka.producer(); await p.connect();
const value = 'v'.repeat(200);
const N = 500, PER = 2000;
for (let i = 0; i < N; i++) await p.send({ topic: 'big', messages: Array.from({ length: PER }, (_, j) => ({ key: 'k' + (i * PER + j), value })) });
await p.disconnect();
const time = async (base, path) => { const t = performance.now(); const r = await fetch(base + path); const j = await r.json(); return [Math.round((performance.now() - t) * 10) / 10, j.messages?.length ?? j.length]; };
const mid = (N * PER) / 2;
for (const path of ['api/topics', `api/topics/big/messages?from=offset:${mid}&limit=50`, 'api/topics/big/messages?from=end&limit=50', 'api/disk/big/0/segments']) {
  await time(b.uiUrl, path); console.log('serve', path, ...(await time(b.uiUrl, path)), 'ms/items');
}
await b.close();
const ui = await UiServer.start({ dataDir });
for (const path of [`api/topics/big/messages?from=offset:${mid}&limit=50`, 'api/disk/big/0/segments']) {
  await time(ui.url, path); console.log('offline', path, ...(await time(ui.url, path)), 'ms/items');
}
await ui.close();
const { statSync, readdirSync } = await import('node:fs');
console.log('bytes', readdirSync(dataDir + '/big-0').filter(f => f.endsWith('.log')).reduce((n, f) => n + statSync(dataDir + '/big-0/' + f).size, 0));
rmSync(dataDir, { recursive: true, force: true });
