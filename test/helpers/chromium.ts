/**
 * Debian's Chromium driven by playwright-core (no browser download: the system binary), for the web
 * console's end-to-end tests. A peer like kcat: the file using it is listed in test/tiers.ts.
 */
import { chromium, type Browser } from 'playwright-core';
import { requirePeer } from './tier.js';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  requirePeer('chromium');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
