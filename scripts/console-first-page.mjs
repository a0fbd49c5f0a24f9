/**
 * The console's first page of messages timed as the browser test (test/ui/console-browser.test.ts)
 * does, N times on fresh pages: the overview, a click on topic `orders`, its rows. Prints the test's
 * figure (Date.now around playwright's click and wait), the page's own (click event to the first row
 * in the DOM, and to the frame after it painted) and each API request's span with its Server-Timing.
 * Usage after `npm run build`: N=8 node scripts/console-first-page.mjs  (DIST=<other build>/dist to
 * time another build against the same load). Needs /usr/bin/chromium.
 */
const DIST = process.env.DIST ?? new URL('../dist', import.meta.url).pathname;
const { filledBroker } = await import(DIST + '/test/ui/fixture.js');
const { launchChromium } = await import(DIST + '/test/helpers/chromium.js');
import { rmSync } from 'node:fs';
const N = Number(process.env.N ?? 6);
const broker = await filledBroker();
const browser = await launchChromium();
const base = broker.uiUrl;
const outer = [], inner = [], painted = [];
try {
  for (let i = 0; i < N; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(base + '#/');
    await page.waitForSelector('main[data-ready="#/"]');
    await page.evaluate(() => {
      const w = window;
      document.addEventListener('click', () => {
        performance.clearResourceTimings();
        w.__t0 = performance.now();
        const obs = new MutationObserver(() => { if (document.querySelector('#mb-results tbody tr')) { obs.disconnect(); w.__t1 = performance.now(); requestAnimationFrame(() => { w.__t2 = performance.now(); setTimeout(() => { w.__t3 = performance.now(); }); }); } });
        obs.observe(document.body, { childList: true, subtree: true });
      }, { capture: true, once: true });
    });
    const t0 = Date.now();
    await page.click('main table a:text-is("orders")');
    await page.waitForSelector('#mb-results tbody tr');
    await page.$$eval('#mb-results tbody tr', (trs) => trs.length);
    const ms = Date.now() - t0;
    const r = await page.evaluate(() => {
      const t0 = window.__t0;
      return { ms: Math.round(window.__t1 - t0), raf: Math.round(window.__t2 - window.__t1), paint: Math.round(window.__t3 - window.__t2), a: performance.timeOrigin + window.__t0, b: performance.timeOrigin + window.__t1, res: performance.getEntriesByType('resource').map((e) => ({ n: e.name.replace(/^.*\/api\//, '').replace(/\?.*/, ''), s: Math.round(e.startTime - t0), e: Math.round(e.responseEnd - t0), st: e.serverTiming.map((x) => x.name + '=' + x.duration.toFixed(1)).join(',') })) };
    });
    outer.push(ms); inner.push(r.ms); painted.push(r.ms + r.raf + r.paint);
    console.log(`test ${ms} ms (before the click event ${Math.round(r.a - t0)}, after the row ${Math.round(t0 + ms - r.b)}), in page ${r.ms} ms, next frame +${r.raf}, painted +${r.paint}:  ` + r.res.map((x) => `${x.n} [${x.s}-${x.e}${x.st ? ' ' + x.st : ''}]`).join('  '));
    await page.close();
  }
} finally {
  await browser.close();
  await broker.close();
  rmSync(broker.dataDir, { recursive: true, force: true });
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(`median test ${med(outer)} ms (${outer.join(' ')}), in page ${med(inner)} ms (${inner.join(' ')}), painted ${med(painted)} ms (${painted.join(' ')})`);
