/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against a broker
 * kafkajs filled: the overview, a topic's messages from the beginning, an offset and a timestamp
 * with a JSON value and its headers (an HTML header key shown as text, never run), a message
 * produced through the form and seen in the browser, a consumer group's lag, and a gzip batch's
 * header fields in the log-on-disk inspector. Screenshots of each page at desktop and phone widths
 * go to test/ui/screenshots/ (ignored by git).
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Broker } from '../../src/broker/broker.js';
import { launchChromium } from '../helpers/chromium.js';
import { activeConsumer, filledBroker, HTML_HEADER, LATER_TS, openTransaction } from './fixture.js';

const SHOTS = fileURLToPath(new URL('../../../test/ui/screenshots/', import.meta.url));
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

async function open(page: Page, url: string): Promise<void> {
  // the same URL again (a hash only) would not load the page afresh
  if (page.url() === url) await page.reload();
  else await page.goto(url);
  await page.waitForSelector(`main[data-ready="${new URL(url).hash || '#/'}"]`);
}

/** The message browser's rows: offset, key and value cells. */
async function rows(page: Page): Promise<string[][]> {
  await page.waitForSelector('#mb-results tbody tr');
  return page.$$eval('#mb-results tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).slice(0, 4).map((td) => (td.textContent ?? '').trim())));
}

describe('web console in Chromium', () => {
  let broker: Broker;
  let browser: Browser;
  let base: string;
  const errors: string[] = [];
  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    broker = await filledBroker();
    base = broker.uiUrl!;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await broker?.close();
    if (broker) rmSync(broker.dataDir, { recursive: true, force: true });
  });

  async function newPage(size: { width: number; height: number } = WIDTHS.desktop): Promise<Page> {
    const page = await browser.newPage({ viewport: size });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // the refusals the tests provoke (a 400, a 409) are logged by Chromium as failed loads; the page shows them
      if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d /.test(m.text())) errors.push(m.text());
    });
    return page;
  }

  test('overview, topic messages from the beginning, an offset and a timestamp; HTML stays text', async () => {
    const page = await newPage();
    await open(page, base + '#/');
    assert.equal(await page.locator('main table a', { hasText: 'orders' }).count(), 1);
    await page.screenshot({ path: SHOTS + 'overview-desktop.png', fullPage: true });

    // timed twice: around playwright's click and wait (its own round trips included), and inside
    // the page from the click event to the first row in the DOM, with the API answers' server time
    await page.evaluate(() => {
      const w = window as unknown as { __firstPage?: { ms: number; painted: number; server: string } };
      document.addEventListener('click', () => {
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          if (!document.querySelector('#mb-results tbody tr')) return;
          seen.disconnect();
          const ms = performance.now() - t0;
          const api = performance.getEntriesByType('resource').filter((e): e is PerformanceResourceTiming => e.startTime >= t0 && e.name.includes('/api/topics/'));
          const server = api.map((e) => new URL(e.name).pathname.replace('/api/topics/', '') + ' ' + Math.round(e.responseEnd - e.startTime) + ' ms (server ' + Math.round(e.serverTiming.find((x) => x.name === 'api')?.duration ?? NaN) + ')').join(', ');
          // painted: the frame after the rows (a task queued from its animation frame runs once it is drawn)
          requestAnimationFrame(() => setTimeout(() => { w.__firstPage = { ms: Math.round(ms), painted: Math.round(performance.now() - t0), server }; }));
        });
        seen.observe(document.body, { childList: true, subtree: true });
      }, { capture: true, once: true });
    });
    const t0 = Date.now();
    await page.click('main table a:text-is("orders")');
    const first = await rows(page);
    const firstPageMs = Date.now() - t0;
    const inPage = await (await page.waitForFunction(() => (window as unknown as { __firstPage?: { ms: number; painted: number; server: string } }).__firstPage)).jsonValue();
    process.stdout.write(`# first page of messages rendered ${firstPageMs} ms after the click; in the page ${inPage?.ms} ms from the click event to the first row, painted at ${inPage?.painted} ms (${inPage?.server})\n`);
    assert.deepEqual(first.map((r) => [r[0], r[2]]), [['0', 'o-1'], ['1', 'o-2'], ['2', 'o-3'], ['3', 'o-4'], ['4', 'o-5']]);
    await page.selectOption('#mb-format', 'json');
    const json = await page.locator('#mb-results tbody tr').first().locator('pre.json').first().textContent();
    assert.deepEqual(JSON.parse(json!), { id: 1, item: 'book' });
    assert.match(json!, /\n {2}"item": "book"/);
    // the header whose key is markup: its text is on the page, no <img> was made, nothing ran
    const headerText = await page.locator('#mb-results tbody tr').first().locator('td').nth(4).textContent();
    assert.ok(headerText!.includes(HTML_HEADER), headerText!);
    assert.ok(headerText!.includes('<b>bold</b>'));
    assert.equal(await page.locator('main img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await page.screenshot({ path: SHOTS + 'topic-desktop.png', fullPage: true });

    await page.selectOption('#mb-from', 'offset');
    await page.fill('#mb-at', '3');
    await page.click('#mb-load');
    await page.waitForFunction(() => document.querySelector('#mb-results tbody tr td')?.textContent === '3');
    assert.deepEqual((await rows(page)).map((r) => r[0]), ['3', '4']);

    await page.selectOption('#mb-from', 'timestamp');
    await page.fill('#mb-at', String(LATER_TS + 1n));
    await page.click('#mb-load');
    await page.waitForFunction(() => document.querySelector('#mb-results tbody tr td')?.textContent === '4');
    assert.deepEqual((await rows(page)).map((r) => r[0]), ['4']);
    await page.close();
  });

  test('produce through the form and see the message in the browser', async () => {
    const page = await newPage();
    await open(page, base + '#/topic/orders');
    await rows(page);
    await page.fill('#pf-key', 'from-browser');
    await page.fill('#pf-value', '{"made":"in chromium"}');
    await page.fill('#pf-headers', 'src=form\nrun=1');
    await page.click('#pf-send');
    await page.waitForSelector('#pf-status .good');
    assert.equal(await page.textContent('#pf-status'), 'Produced at offset 5 of partition 0');
    await page.selectOption('#mb-from', 'end');
    await page.fill('#mb-limit', '1');
    await page.click('#mb-load');
    await page.waitForFunction(() => document.querySelector('#mb-results tbody tr td')?.textContent === '5');
    const [row] = await rows(page);
    assert.deepEqual(row, ['5', row![1], 'from-browser', '{"made":"in chromium"}']);
    const headers = await page.locator('#mb-results tbody tr').first().locator('td').nth(4).textContent();
    assert.equal(headers, 'src: formrun: 1');
    await page.close();
  });

  test('a consumer group with its lag', async () => {
    const page = await newPage();
    await open(page, base + '#/groups');
    await page.click('main table a:text-is("billing")');
    await page.waitForSelector('main[data-ready="#/group/billing"]');
    const cells = await page.$$eval('main table', (ts) => Array.from(ts[1]!.querySelectorAll('tbody td')).map((td) => td.textContent));
    const end = Number((await (await fetch(base + 'api/topics/orders')).json()).partitions[0].endOffset);
    assert.deepEqual(cells.slice(0, 5), ['orders', '0', '1', String(end), String(end - 1)]);
    await page.screenshot({ path: SHOTS + 'group-desktop.png', fullPage: true });
    await page.close();
  });

  test('live tail: a message produced from the form appears; leaving the page ends the stream', async () => {
    const page = await newPage();
    await open(page, base + '#/topic/orders');
    await rows(page);
    await page.click('#tail-toggle');
    await page.waitForFunction(() => /^waiting for messages/.test(document.querySelector('#tail-status')?.textContent ?? ''));
    await page.fill('#pf-key', 'tailed-key');
    await page.fill('#pf-value', 'seen live');
    await page.click('#pf-send');
    await page.waitForSelector('#tail-list tbody tr');
    const cells = await page.$$eval('#tail-list tbody tr td', (tds) => tds.map((td) => (td.textContent ?? '').trim()));
    assert.deepEqual([cells[2], cells[3]], ['tailed-key', 'seen live']);
    const streams = async (): Promise<number> => (await (await fetch(base + 'api/info')).json()).streams;
    assert.equal(await streams(), 1);
    await page.screenshot({ path: SHOTS + 'topic-tail-desktop.png', fullPage: true });
    await page.click('#nav-disk');
    await page.waitForSelector('main[data-ready="#/disk"]');
    for (let i = 0; i < 100 && (await streams()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await streams(), 0, 'the tail stopped when the page went');
    await page.close();
  });

  test('message filters and newest-first paging', async () => {
    const page = await newPage();
    await open(page, base + '#/topic/orders');
    await rows(page);
    await page.selectOption('#mb-dir', 'backward');
    await page.fill('#mb-limit', '2');
    await page.click('#mb-load');
    await page.waitForFunction(() => /newest first/.test(document.querySelector('#mb-summary')?.textContent ?? ''));
    const newest = (await rows(page)).map((r) => r[0]);
    assert.equal(newest.length, 2);
    assert.ok(Number(newest[0]) > Number(newest[1]), newest.join());
    await page.click('#mb-next');
    await page.waitForFunction((top) => document.querySelector('#mb-results tbody tr td')?.textContent === String(top), Number(newest[1]) - 1);
    await page.selectOption('#mb-dir', 'forward');
    await page.fill('#mb-limit', '50');
    await page.fill('#mb-value', 'pen');
    await page.click('#mb-load');
    await page.waitForFunction(() => document.querySelectorAll('#mb-results tbody tr').length === 1 && document.querySelector('#mb-results tbody tr td')?.textContent === '1');
    await page.fill('#mb-value', '');
    await page.fill('#mb-header', 'trace');
    await page.click('#mb-load');
    await page.waitForFunction(() => document.querySelectorAll('#mb-results tbody tr').length === 1 && document.querySelector('#mb-results tbody tr td')?.textContent === '0');
    await page.screenshot({ path: SHOTS + 'topic-filtered-desktop.png', fullPage: true });
    await page.close();
  });

  test('topic configs edited from the page; Kafka\'s INVALID_CONFIG shown', async () => {
    const page = await newPage();
    await open(page, base + '#/topic/orders');
    await page.waitForSelector('#cfg-table table');
    await page.fill('#cfg-name', 'retention.ms');
    await page.fill('#cfg-value', 'soon');
    await page.click('#cfg-set');
    await page.waitForSelector('#cfg-status .error');
    assert.match((await page.textContent('#cfg-status .error'))!, /^INVALID_CONFIG: /);
    await page.fill('#cfg-value', '86400000');
    await page.click('#cfg-set');
    await page.waitForSelector('#cfg-status .good');
    const row = await page.$$eval('#cfg-table tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)).find((c) => c[0] === 'retention.ms'));
    assert.deepEqual(row, ['retention.ms', '86400000', 'DYNAMIC_TOPIC_CONFIG']);
    assert.equal(broker.topics.get('orders')?.overrides['retention.ms'], '86400000');
    await page.click('#cfg-delete');
    await page.waitForFunction(() => /default/.test(document.querySelector('#cfg-status')?.textContent ?? ''));
    assert.equal(broker.topics.get('orders')?.overrides['retention.ms'], undefined);
    await page.close();
  });

  test('the broker page: listeners, API versions, requests answered; a broker config edited', async () => {
    const page = await newPage();
    await open(page, base + '#/');
    await page.click('#nav-broker');
    await page.waitForSelector('main[data-ready="#/broker"]');
    assert.equal(await page.locator('#broker-versions td:text-is("Produce")').count(), 1);
    assert.ok((await page.locator('#broker-requests tbody tr').count()) > 0);
    assert.ok((await page.textContent('#broker-listeners'))!.includes(broker.bootstrap));
    await page.fill('#cfg-name', 'log.retention.ms');
    await page.fill('#cfg-value', '7200000');
    await page.click('#cfg-set');
    await page.waitForSelector('#cfg-status .good');
    assert.equal(broker.config.logConfig.retentionMs, 7_200_000);
    await page.screenshot({ path: SHOTS + 'broker-desktop.png', fullPage: true });
    // back to the default: the fixture's messages are two hours old, and retention would take them
    await page.click('#cfg-delete');
    await page.waitForFunction(() => /default/.test(document.querySelector('#cfg-status')?.textContent ?? ''));
    assert.equal(broker.config.logConfig.retentionMs, 604_800_000);
    await page.close();
  });

  test('reset a group\'s offsets from the page (dry run, then execute), see the consumer resume there; refused while active; delete the group', async () => {
    const page = await newPage();
    const consumer = await activeConsumer(broker, 'web-reset', 'orders');
    try {
      await open(page, base + '#/group/web-reset');
      await page.fill('#rs-topic', 'orders');
      await page.click('#rs-preview');
      await page.waitForSelector('#rs-result .error');
      assert.match((await page.textContent('#rs-result .error'))!, /^Assignments can only be reset if the group 'web-reset' is inactive, but the current state is \w+\.$/);
    } finally {
      await consumer.stop();
    }
    // the consumer's LeaveGroup empties the group (a rebalance may still be finishing)
    for (let i = 0; i < 200 && (await (await fetch(base + 'api/groups/web-reset')).json()).state !== 'Empty'; i++) await new Promise((r) => setTimeout(r, 50));
    await open(page, base + '#/group/web-reset');
    assert.equal(await page.textContent('#group-state'), 'Empty');
    await page.fill('#rs-topic', 'orders');
    await page.selectOption('#rs-to', 'offset');
    await page.fill('#rs-at', '2');
    await page.click('#rs-preview');
    await page.waitForSelector('#rs-result table');
    assert.match((await page.textContent('#rs-result p'))!, /^Dry run/);
    const plan = await page.$$eval('#rs-result tbody td', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual([plan[0], plan[1], plan[3]], ['orders', '0', '2']);
    await page.screenshot({ path: SHOTS + 'group-reset-desktop.png', fullPage: true });
    await page.click('#rs-execute');
    await page.waitForFunction(() => /Committed/.test(document.querySelector('main')?.textContent ?? '') && document.querySelector('#group-offsets tbody td:nth-child(3)')?.textContent === '2');
    const resumed = await activeConsumer(broker, 'web-reset', 'orders');
    try {
      const deadline = Date.now() + 20_000;
      while (resumed.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.equal(resumed.received[0], '2', 'the consumer resumed at the offset reset from the page');
    } finally {
      await resumed.stop();
    }
    await open(page, base + '#/group/web-reset');
    page.once('dialog', (d) => void d.accept());
    await page.click('#gd-delete');
    await page.waitForSelector('#gd-result .good');
    assert.equal((await fetch(base + 'api/groups/web-reset')).status, 404);
    await page.close();
  });

  test('transactions and producers: an open transaction with its partitions and age, its producer id and epoch', async () => {
    const txn = await openTransaction(broker, 'web-txn', 'orders');
    const page = await newPage();
    try {
      await open(page, base + '#/');
      await page.click('#nav-txn');
      await page.waitForSelector('main[data-ready="#/transactions"]');
      assert.equal(await page.textContent('#txn-open'), '1');
      const row = await page.$$eval('#txn-table tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')).find((c) => c[0] === 'web-txn'));
      assert.equal(row![1], 'Ongoing');
      assert.match(row![4]!, /^\d+ s$/);
      assert.equal(row![6], 'orders [0]');
      const producer = await page.$$eval('#producer-table tbody tr', (trs, pid) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')).find((c) => c[1] === pid), row![2]!);
      assert.equal(producer![0], 'orders-0');
      assert.equal(producer![2], row![3], 'the producer epoch');
      assert.equal(producer![3], '0', 'the last sequence');
      assert.match(producer![6]!, /^\d+$/, 'the offset where the open transaction started');
      await page.screenshot({ path: SHOTS + 'transactions-desktop.png', fullPage: true });
      await txn.commit();
      await open(page, base + '#/transactions');
      assert.equal(await page.textContent('#txn-open'), '0');
    } finally {
      await txn.disconnect();
      await page.close();
    }
  });

  test('sparklines on the overview and a group\'s lag chart, sampled by the server while the page is open', async () => {
    const page = await newPage();
    await open(page, base + '?sample=200#/');
    const points = (sel: string): Promise<number> => page.$eval(sel, (el) => Number(el.getAttribute('data-points')));
    await page.waitForFunction(() => Number(document.querySelector('tr[data-topic="orders"] svg.spark')?.getAttribute('data-points')) >= 2);
    const producer = setInterval(() => void fetch(base + 'api/topics/orders/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"value":"tick"}' }), 100);
    try {
      await page.waitForFunction(() => /^[1-9][\d.]* msg\/s$|^0\.[0-9]*[1-9][0-9]* msg\/s$/.test(document.querySelector('tr[data-topic="orders"] td.rate')?.textContent ?? ''));
    } finally {
      clearInterval(producer);
    }
    assert.ok((await points('tr[data-topic="orders"] svg.spark')) >= 2);
    assert.match((await page.getAttribute('tr[data-topic="orders"] svg.spark', 'aria-label'))!, /^end offsets: \d+ samples, last \d+/);
    await page.screenshot({ path: SHOTS + 'overview-sparklines-desktop.png', fullPage: true });
    await open(page, base + '?sample=200#/group/billing');
    await page.waitForFunction(() => Number(document.querySelector('#lag-chart')?.getAttribute('data-points')) >= 3);
    // uPlot draws on a canvas: the series it was given, and pixels of each series' colour on it
    assert.equal(await page.getAttribute('#lag-chart', 'data-series'), '2', 'the total and one partition');
    const drawn = await page.$eval('#lag-chart canvas', (c) => {
      const canvas = c as HTMLCanvasElement;
      const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      const near = (r: number, g: number, b: number): number => {
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - r) < 40 && Math.abs(d[i + 1]! - g) < 40 && Math.abs(d[i + 2]! - b) < 40 && d[i + 3]! > 128) n++;
        return n;
      };
      return { total: near(0x0b, 0x5c, 0xad), partition: near(0xb3, 0x26, 0x1e) };
    });
    assert.ok(drawn.total > 0 && drawn.partition > 0, `lines drawn: ${JSON.stringify(drawn)}`);
    await page.screenshot({ path: SHOTS + 'group-lag-desktop.png', fullPage: true });
    await open(page, base + '#/disk');
    for (let i = 0; i < 100 && (await (await fetch(base + 'api/info')).json()).samplers !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await (await fetch(base + 'api/info')).json()).samplers, 0, 'the sampling stopped with the page');
    await page.close();
  });

  test('the log on disk: segments, a segment with its index, and the gzip batch header', async () => {
    const page = await newPage();
    await open(page, base + '#/disk/orders/0');
    await page.fill('#lk-offset', '4');
    await page.click('#lk-go');
    await page.waitForSelector('#lk-steps ol');
    const steps = await page.$$eval('#lk-steps li', (li) => li.map((x) => x.textContent));
    assert.equal(steps[0], 'Segment: the greatest base offset at or below 4 among [0] is 0');
    assert.match(steps.at(-1)!, /^Batch at position \d+ holds offsets up to 4$/);
    await page.screenshot({ path: SHOTS + 'segments-desktop.png', fullPage: true });
    await page.click('main table a:text-is("0")');
    await page.waitForSelector('main[data-ready="#/disk/orders/0/0"]');
    await page.screenshot({ path: SHOTS + 'segment-desktop.png', fullPage: true });
    await page.click('main table a:text-is("0")');
    await page.waitForSelector('main[data-ready="#/disk/orders/0/0/0"]');
    const fields = await page.$$eval('#batch-fields tbody tr', (trs) => Object.fromEntries(trs.map((tr) => {
      const td = Array.from(tr.querySelectorAll('td')).map((c) => c.textContent ?? '');
      return [td[0], [td[1], td[2], td[3]]];
    })));
    assert.deepEqual(fields['baseOffset'], ['0..7', '0', '0000000000000000']);
    assert.deepEqual(fields['magic'], ['16..16', '2', '02']);
    assert.deepEqual(fields['lastOffsetDelta'], ['23..26', '2', '00000002']);
    assert.deepEqual(fields['recordsCount'], ['57..60', '3', '00000003']);
    assert.equal(await page.locator('#crc-ok').textContent(), 'match');
    assert.equal(await page.locator('main table', { hasText: 'compression (bits 0-2)' }).locator('td:text-is("gzip")').count(), 1);
    // the hex view colours the crc's four bytes as the crc field
    assert.deepEqual(await page.$$eval('#batch-hex span[title="crc"]', (s) => s.map((x) => x.textContent)), (fields['crc']![2]!.match(/../g) ?? []));
    await page.screenshot({ path: SHOTS + 'batch-desktop.png', fullPage: true });
    await page.close();
  });

  test('every page at phone width, and no script errors on any page', async () => {
    const page = await newPage(WIDTHS.phone);
    for (const [name, hash] of [['overview', '#/'], ['topic', '#/topic/orders'], ['group', '#/group/billing'], ['broker', '#/broker'], ['transactions', '#/transactions'], ['segments', '#/disk/orders/0'], ['segment', '#/disk/orders/0/0'], ['batch', '#/disk/orders/0/0/0']] as const) {
      await open(page, base + hash);
      if (name === 'topic') await rows(page);
      // nothing wider than the phone but the tables' own scrolling boxes
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${name} overflows the phone width by ${overflow}px`);
      await page.screenshot({ path: SHOTS + `${name}-phone.png`, fullPage: true });
    }
    await page.close();
    assert.deepEqual(errors, []);
  });
});
