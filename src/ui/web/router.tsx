/**
 * The hash router: each address (#/topic/orders, #/disk/t/0/0/123, …) names a page loader that
 * fetches the page's data and returns it rendered; the page shows once loaded, and <main> gets
 * data-ready set to the address (the browser test waits on it). A new address, or reload(),
 * unmounts the page before, closing its event streams.
 */
import { Fragment, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { brokerPage } from './pages/broker.js';
import { batchPage, diskPage, segmentPage, segmentsPage } from './pages/disk.js';
import { groupPage, groupsPage } from './pages/groups.js';
import { overviewPage } from './pages/overview.js';
import { topicPage } from './pages/topic.js';
import { transactionsPage } from './pages/transactions.js';
import { ErrorBox } from './ui.js';

/** Loads the current address again (after a change the page shows, as a reset of offsets). */
export function reload(): void {
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

function load(parts: string[]): Promise<JSX.Element> {
  const [a, b, c, d, e] = parts;
  if (a === '' || a === undefined) return overviewPage();
  if (a === 'topic' && b !== undefined) return topicPage(b);
  if (a === 'groups') return groupsPage();
  if (a === 'group' && b !== undefined) return groupPage(b);
  if (a === 'broker') return brokerPage(b);
  if (a === 'transactions') return transactionsPage(b);
  if (a === 'disk' && parts.length === 1) return diskPage();
  if (a === 'disk' && parts.length === 3) return segmentsPage(b!, c!);
  if (a === 'disk' && parts.length === 4) return segmentPage(b!, c!, d!);
  if (a === 'disk' && parts.length === 5) return batchPage(b!, c!, d!, e!);
  return Promise.resolve(<h1>Not found</h1>);
}

export function Router(props: { main: HTMLElement }): JSX.Element | null {
  const [view, setView] = useState<{ hash: string; page: JSX.Element; n: number } | null>(null);
  useEffect(() => {
    let n = 0;
    const route = async (): Promise<void> => {
      const mine = ++n;
      const hash = location.hash;
      const parts = hash.replace(/^#\/?/, '').split('/').map((x) => decodeURIComponent(x));
      let page: JSX.Element;
      try {
        page = await load(parts);
      } catch (e) {
        page = <ErrorBox error={e} />;
      }
      if (mine !== n) return; // a later address won
      document.title = 'kafkalite console' + (parts[1] ? ' – ' + parts[1] : '');
      setView({ hash: hash || '#/', page, n: mine });
    };
    window.addEventListener('hashchange', route);
    void route();
    return () => window.removeEventListener('hashchange', route);
  }, []);
  useEffect(() => {
    if (view) props.main.setAttribute('data-ready', view.hash);
  }, [view]);
  // keyed by load: a reload mounts the page afresh
  return view && <Fragment key={view.n}>{view.page}</Fragment>;
}
