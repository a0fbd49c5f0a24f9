/**
 * The console's front end: Preact renders the page the address names into <main>; uPlot draws the
 * lag chart. `npm run build` bundles this with its style sheets (scripts/build-ui.mjs); the server
 * serves the bundle, so nothing is fetched from the network at run time.
 */
import { render } from 'preact';
import './style.css';
import { api, type Info } from './api.js';
import { Router } from './router.js';
import { ErrorBox, session } from './ui.js';

async function start(): Promise<void> {
  const main = document.getElementById('main')!;
  try {
    session.info = await api<Info>('info');
  } catch (e) {
    main.replaceChildren();
    render(<ErrorBox error={e} />, main);
    return;
  }
  const { info } = session;
  document.getElementById('mode')!.textContent = info.mode === 'offline' ? 'offline, read-only: ' + info.dataDir : info.mode === 'serve' ? 'broker ' + info.bootstrap + ' · data ' + info.dataDir : 'cluster ' + info.bootstrap;
  if (info.mode === 'offline') for (const id of ['nav-groups', 'nav-broker', 'nav-txn']) document.getElementById(id)?.remove();
  if (!info.dataDir) document.getElementById('nav-disk')?.remove();
  main.replaceChildren();
  render(<Router main={main} />, main);
}

void start();
