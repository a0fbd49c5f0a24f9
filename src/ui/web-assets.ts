/**
 * The console's built front end: the files scripts/build-ui.mjs (esbuild) writes next to this module
 * in dist/src/ui/web, read once and kept in memory. Only the names in ASSETS are served, so a request
 * path never reaches the file system. A checkout compiled by tsc alone has no bundle: the page then
 * gets a 500 that says to run `npm run build`.
 */
import { readFileSync } from 'node:fs';

const ASSETS: Record<string, { file: string; type: string }> = {
  'app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  'style.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  'app.js.map': { file: 'app.js.map', type: 'application/json; charset=utf-8' },
  'app.css.map': { file: 'app.css.map', type: 'application/json; charset=utf-8' },
};

const cache = new Map<string, string>();

/** The asset served at /assets/<name>, or undefined when there is no such asset. */
export function webAsset(name: string): { type: string; body: string } | undefined {
  const asset = ASSETS[name];
  if (!asset) return undefined;
  let body = cache.get(name);
  if (body === undefined) {
    try {
      body = readFileSync(new URL(`./web/${asset.file}`, import.meta.url), 'utf8');
    } catch (e) {
      throw new Error(`the console's front end is not built (dist/src/ui/web/${asset.file}: ${e instanceof Error ? e.message : String(e)}): run npm run build, or node scripts/build-ui.mjs after tsc`);
    }
    cache.set(name, body);
  }
  return { type: asset.type, body };
}
