/** esbuild bundles imported style sheets into app.css; the import has no value. */
declare module '*.css';
