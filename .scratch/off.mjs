import { UiServer } from '/work/u6/dist/src/ui/server.js';
const ui = await UiServer.start({ dataDir: '/work/shared/corpora/kafka-tester/@HEAD-018f9bc/internal/test_helpers/pass_all/kraft-combined-logs' });
for (const p of ['api/topics', 'api/disk', 'api/topics/foo/messages?limit=3', 'api/disk/__cluster_metadata/0/segments']) { const r = await fetch(ui.url + p); console.log(r.status, p, (await r.text()).slice(0, 500)); }
await ui.close();
