import type { ApiClient } from '../api-client.js';
import type { Citation, CitationPartition } from '@km/wire';
import { h, uniqueId } from '../dom.js';
import { saveBlob } from '../save-blob.js';
import { passageLocation } from './citation-location.js';

/**
 * Citations (of a search or an answer): each file with its download link, each passage with
 * its place and relevance, and a button that opens the passage's text.
 */
export function citationList(api: ApiClient, citations: readonly Citation[], onError: (message: string) => void): HTMLOListElement {
  return h('ol', { class: 'citations' }, ...citations.map((c) => citationItem(api, c, onError)));
}

function citationItem(api: ApiClient, citation: Citation, onError: (message: string) => void): HTMLLIElement {
  return h(
    'li',
    { class: 'citation', 'data-document-id': citation.documentId },
    h(
      'div',
      { class: 'citation-head' },
      h('strong', { class: 'source-name' }, citation.sourceName),
      h('span', { class: 'muted' }, ` document ${citation.documentId}`),
      ' ',
      downloadLink(api, citation, onError),
      isWebPage(citation.sourceUrl)
        ? h('a', { href: citation.sourceUrl, rel: 'noopener noreferrer', target: '_blank', class: 'source-url' }, 'Open web page')
        : null,
    ),
    h('ul', { class: 'passages' }, ...citation.partitions.map((p) => passageItem(citation, p))),
  );
}

function passageItem(citation: Citation, partition: CitationPartition): HTMLLIElement {
  const where = passageLocation(citation, partition);
  const panelId = uniqueId('passage');
  const panel = h('blockquote', { id: panelId, class: 'passage-text', hidden: true, tabindex: -1 }, partition.text);
  // The name stays; aria-expanded says whether the passage is shown.
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'link-button',
      'aria-expanded': 'false',
      'aria-controls': panelId,
      onclick: () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        panel.hidden = !open;
        if (open) panel.focus();
      },
    },
    `Open ${citation.sourceName}, ${where}`,
  );
  return h(
    'li',
    { class: 'passage' },
    toggle,
    h('span', { class: 'relevance', title: 'relevance' }, ` relevance ${partition.relevance.toFixed(3)}`),
    panel,
  );
}

/** A link to the file through `GET /download`; fetched with the tab's access key, then saved. */
function downloadLink(api: ApiClient, citation: Citation, onError: (message: string) => void): HTMLAnchorElement {
  const query = { index: citation.index, documentId: citation.documentId, filename: citation.sourceName };
  return h(
    'a',
    {
      href: api.url('download', query),
      download: citation.sourceName,
      class: 'download',
      onclick: (event: Event) => {
        event.preventDefault();
        api.download(citation.index, citation.documentId, citation.sourceName).then(
          (blob) => saveBlob(blob, citation.sourceName),
          (error: unknown) => onError(`Could not download ${citation.sourceName}: ${(error as Error).message}`),
        );
      },
    },
    `Download ${citation.sourceName}`,
  );
}

/** A web page's address (files have a relative `/download` link as their sourceUrl instead). */
function isWebPage(url: string | undefined): url is string {
  return url !== undefined && /^https?:\/\//i.test(url);
}
