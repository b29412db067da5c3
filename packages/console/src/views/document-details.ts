import type { ApiClient } from '../api-client.js';
import type { DocumentFileDetails, DocumentSummary } from '@km/wire';
import { h, replaceChildren } from '../dom.js';
import { formatBytes } from '../format.js';
import { saveBlob } from '../save-blob.js';

/**
 * A document's details, read when opened (`GET /documents/files`): its uploaded files, each
 * with a download button, and the partitions the pipeline cut from them, each with a button
 * that shows its text (`GET /download?…&artifacts=true`).
 */
export function documentDetails(api: ApiClient, document: () => DocumentSummary, onError: (text: string) => void): HTMLDetailsElement {
  const body = h('div', { class: 'details-body' }, h('p', { class: 'muted' }, 'Loading the files…'));
  const load = async () => {
    const { index, documentId } = document();
    try {
      const { files } = await api.documentFiles(index, documentId);
      const uploads = files.filter((f) => f.artifactType === 'uploaded_file');
      const partitions = files
        .filter((f) => f.artifactType === 'text_partition')
        .sort((a, b) => a.partitionNumber - b.partitionNumber || a.name.localeCompare(b.name));
      replaceChildren(
        body,
        h('h4', {}, 'Uploaded files'),
        uploads.length
          ? h('ul', { class: 'uploads' }, ...uploads.map((f) => uploadItem(api, index, documentId, f, onError)))
          : h('p', { class: 'muted' }, 'None.'),
        h('h4', {}, 'Partitions'),
        partitions.length
          ? h('ol', { class: 'partitions' }, ...partitions.map((f) => partitionItem(api, index, documentId, f, onError)))
          : h('p', { class: 'muted' }, 'None yet.'),
      );
    } catch (error) {
      replaceChildren(body, h('p', { class: 'error' }, `Could not read the files: ${(error as Error).message}`));
    }
  };
  const details: HTMLDetailsElement = h(
    'details',
    {
      class: 'document-details',
      ontoggle: () => {
        if (details.open) void load();
      },
    },
    h('summary', {}, 'Files and partitions'),
    body,
  );
  return details;
}

function uploadItem(
  api: ApiClient,
  index: string,
  documentId: string,
  file: DocumentFileDetails,
  onError: (text: string) => void,
): HTMLLIElement {
  const download = async () => {
    try {
      saveBlob(await api.download(index, documentId, file.name), file.name);
    } catch (error) {
      onError(`Could not download ${file.name}: ${(error as Error).message}`);
    }
  };
  return h(
    'li',
    { class: 'upload' },
    `${file.name} (${formatBytes(file.size)}, ${file.mimeType}) `,
    h('button', { type: 'button', class: 'link-button', onclick: () => void download() }, `Download ${file.name}`),
  );
}

function partitionItem(
  api: ApiClient,
  index: string,
  documentId: string,
  file: DocumentFileDetails,
  onError: (text: string) => void,
): HTMLLIElement {
  const text = h('blockquote', { class: 'passage-text', hidden: true, tabindex: -1 });
  const where = file.sectionNumber > 0 ? `, section ${file.sectionNumber}` : '';
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'link-button',
      'aria-expanded': 'false',
      onclick: () => void show(),
    },
    `Partition ${file.partitionNumber + 1}${file.parent ? ` of ${file.parent}` : ''}${where}`,
  );
  const show = async () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    if (open && !text.textContent) {
      try {
        text.textContent = await (await api.download(index, documentId, file.name, true)).text();
      } catch (error) {
        onError(`Could not read ${file.name}: ${(error as Error).message}`);
        return;
      }
    }
    toggle.setAttribute('aria-expanded', String(open));
    text.hidden = !open;
    if (open) text.focus();
  };
  return h('li', { class: 'partition', 'data-name': file.name }, toggle, h('span', { class: 'muted' }, ` ${formatBytes(file.size)}`), text);
}
