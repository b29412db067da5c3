/** Extension given to a page whose URL has none, by its MIME type. */
const EXTENSIONS: Record<string, string> = {
  'text/html': '.html',
  'application/xhtml+xml': '.xhtml',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'application/pdf': '.pdf',
};

/** Longest stem kept, in UTF-8 bytes (file names must leave room for the pipeline's own suffixes). */
const MAX_STEM = 100;

/**
 * The file name of a page's document: the URL path's last segment, decoded, with characters a
 * file name cannot hold replaced by `_` (`index.html` for a path ending in `/`), and the
 * type's extension added when the segment has none (`/docs/intro` as HTML → `intro.html`).
 *
 * ```ts
 * siteFileName('https://site/docs/', 'text/html'); // 'index.html'
 * ```
 */
export function siteFileName(url: string, mimeType: string): string {
  const path = new URL(url).pathname;
  let segment = path.slice(path.lastIndexOf('/') + 1);
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // a malformed escape: keep it as it is
  }
  segment = segment
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  if (segment === '') return `index${EXTENSIONS[mimeType] ?? '.html'}`;
  const dot = segment.lastIndexOf('.');
  const hasExtension = dot > 0 && dot < segment.length - 1 && segment.length - dot <= 6;
  let stem = hasExtension ? segment.slice(0, dot) : segment;
  const extension = hasExtension ? segment.slice(dot) : (EXTENSIONS[mimeType] ?? '');
  while (Buffer.byteLength(stem) > MAX_STEM) stem = Array.from(stem).slice(0, -1).join('');
  return `${stem}${extension}`;
}
