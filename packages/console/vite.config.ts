import { defineConfig } from 'vite';

// The page (index.html and its code in src/) is built to dist/ui/ with relative asset paths, so
// it works wherever the service mounts it (`/ui/`, or behind a path prefix). No CDN, no web fonts.
// server/ is the Node side: the path of the built files, for the service to serve.
export default defineConfig({
  root: '.',
  base: './',
  build: {
    outDir: 'dist/ui',
    emptyOutDir: true,
    target: 'es2022',
    // Everything is a file of its own (the page's Content-Security-Policy allows only 'self').
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
