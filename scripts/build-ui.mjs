/**
 * Builds the web console's front end (src/ui/web, Preact components and uPlot charts) into
 * dist/src/ui/web/app.js and app.css with esbuild: one minified ES module and one style sheet,
 * every dependency inside, so the console fetches nothing from the network at run time. The
 * server (src/ui/server.ts) reads both files when it starts. `npm run build` runs this after tsc.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/ui/web/main.tsx' },
  outdir: 'dist/src/ui/web',
  bundle: true,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
for (const [file, out] of Object.entries(result.metafile.outputs)) if (!file.endsWith('.map')) console.log(`${file}: ${out.bytes} bytes`);
