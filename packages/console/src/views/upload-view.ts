import type { ApiClient } from '../api-client.js';
import type { ConsoleState } from '../console-state.js';
import { messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';
import { parseTagFields } from '../filters.js';
import { formatBytes } from '../format.js';
import type { DocumentTracker } from './documents-view.js';

/**
 * Drag-and-drop (or chosen) files and a web page URL, uploaded with tags into the chosen index:
 * one document each, with ids the service picks; or, given a document id, one document of them all.
 */
export function uploadView(api: ApiClient, state: ConsoleState, documents: DocumentTracker): HTMLElement {
  const message = messageArea();
  let chosen: File[] = [];
  const fileInput = h('input', { type: 'file', id: 'upload-files', name: 'files', multiple: true, class: 'visually-hidden' });
  const chosenList = h('ul', { class: 'chosen-files', 'aria-live': 'polite' });
  const url = h('input', { type: 'url', name: 'url', autocomplete: 'off', placeholder: 'https://example.com/page' });
  const documentId = h('input', {
    type: 'text',
    name: 'document-id',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'e.g. handbook-2026',
  });
  const tags = h('input', { type: 'text', name: 'tags', autocomplete: 'off', spellcheck: 'false', placeholder: 'topic:space, user:alice' });
  const submit = h('button', { type: 'submit' }, 'Upload');

  const choose = (files: File[]) => {
    chosen = files;
    replaceChildren(chosenList, ...files.map((f) => h('li', {}, `${f.name} (${formatBytes(f.size)})`)));
  };
  fileInput.addEventListener('change', () => choose([...(fileInput.files ?? [])]));

  const dropZone = h(
    'label',
    { class: 'drop-zone', for: fileInput.id },
    h('span', { class: 'drop-title' }, 'Drop files here'),
    h('span', { class: 'muted' }, ' or press to choose files'),
  );
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    choose([...(event.dataTransfer?.files ?? [])]);
  });

  const upload = async (event: Event) => {
    event.preventDefault();
    message.clear();
    let tagFields: string[];
    try {
      tagFields = parseTagFields(tags.value);
    } catch (error) {
      message.error((error as Error).message);
      return;
    }
    const link = url.value.trim();
    if (chosen.length === 0 && !link) {
      message.error('Choose or drop at least one file, or enter a web page URL.');
      return;
    }
    const index = state.index;
    const id = documentId.value.trim();
    const jobs: Array<{ files: File[]; url?: string; label: string }> = id
      ? [{ files: chosen, ...(link ? { url: link } : {}), label: [...chosen.map((f) => f.name), ...(link ? [link] : [])].join(', ') }]
      : chosen.map((f) => ({ files: [f], label: f.name }));
    if (link && !id) jobs.push({ files: [], url: link, label: link });
    submit.disabled = true;
    const done: string[] = [];
    try {
      for (const job of jobs) {
        const accepted = await api.upload({
          index,
          tags: tagFields,
          files: job.files,
          ...(job.url ? { url: job.url } : {}),
          ...(id ? { documentId: id } : {}),
        });
        documents.track({ index: accepted.index, documentId: accepted.documentId });
        done.push(id ? `${job.label} as "${accepted.documentId}"` : job.label);
      }
      message.info(`Uploaded ${done.join(', ')} to "${index}": see Documents for the pipeline.`);
      choose([]);
      fileInput.value = '';
      url.value = '';
      documentId.value = '';
    } catch (error) {
      const ok = done.length ? ` (uploaded: ${done.join(', ')})` : '';
      message.error(`Upload failed: ${(error as Error).message}${ok}`);
    } finally {
      submit.disabled = false;
    }
  };

  return h(
    'section',
    { id: 'upload', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Upload'),
    h(
      'form',
      { onsubmit: (event: Event) => void upload(event) },
      h('div', { class: 'field' }, h('span', { class: 'label' }, 'Files'), fileInput, dropZone, chosenList),
      field('Web page URL', url, 'Optional: the service fetches the page.'),
      field(
        'Document ID',
        documentId,
        'Optional: the files and URL become one document with this id; empty, the service picks one per file.',
      ),
      field('Tags', tags, 'key:value pairs separated by commas, given to every uploaded document.'),
      h('div', { class: 'actions' }, submit),
    ),
    message.element,
  );
}
