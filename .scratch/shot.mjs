import { Broker } from '/work/u6/dist/src/broker/broker.js';
import { chromium } from 'playwright-core';
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
const sh = promisify(exec);
const b = await Broker.start({ ui: true });
await sh(`printf 'k1:{"a":1,"b":[1,2]}\\nk2:<script>alert(1)</script>\\n' | kcat -b ${b.bootstrap} -t demo -P -K: -H trace=abc -X compression.codec=gzip`);
await sh(`seq 1 300 | kcat -b ${b.bootstrap} -t numbers -P -X compression.codec=lz4`);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
page.on('console', (m) => console.log('console:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
for (const [name, hash] of [['overview', '#/'], ['topic', '#/topic/demo'], ['segment', '#/disk/numbers/0/0'], ['batch', '#/disk/demo/0/0/0']]) {
  await page.goto(b.uiUrl + hash);
  await page.waitForSelector('main[data-ready]');
  await page.waitForTimeout(500);
  await page.screenshot({ path: `/tmp/u6-shots/${name}.png`, fullPage: true });
}
await browser.close();
await b.close();
