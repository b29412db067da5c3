import type { ApiClient } from '../api-client.js';
import type { DocumentSummary } from '@km/wire';
import { field, h, replaceChildren } from '../dom.js';
import { parseTagLines, tagStrings } from '../document-tags.js';

/**
 * A document's tag editor, hidden until opened: its own tags as `key:value` lines, saved with
 * `PUT /documents/tags` (they replace the document's tags); the service's reason shows when it
 * refuses (a reserved key, a document busy being ingested or deleted).
 */
export function tagEditor(
  api: ApiClient,
  document: () => DocumentSummary,
  onSaved: (updated: DocumentSummary) => void,
): { element: HTMLFormElement; open(): void } {
  const input = h('textarea', { name: 'document-tags', rows: 3, spellcheck: 'false', placeholder: 'topic:space\nuser:alice' });
  const error = h('p', { class: 'error', role: 'alert' });
  const save = h('button', { type: 'submit' }, 'Save tags');
  const close = () => {
    form.hidden = true;
    replaceChildren(error);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    replaceChildren(error);
    const { index, documentId } = document();
    save.disabled = true;
    try {
      onSaved(await api.updateDocumentTags(index, documentId, parseTagLines(input.value)));
      close();
    } catch (failure) {
      replaceChildren(error, `Could not save the tags: ${(failure as Error).message}`);
    } finally {
      save.disabled = false;
    }
  };
  const form: HTMLFormElement = h(
    'form',
    { class: 'tag-editor', hidden: true, onsubmit: (event: Event) => void submit(event) },
    field('Tags of the document', input, 'One key:value per line; they replace the document’s tags.'),
    error,
    h('div', { class: 'actions' }, save, h('button', { type: 'button', class: 'secondary', onclick: close }, 'Cancel')),
  );
  return {
    element: form,
    open() {
      input.value = tagStrings(document().tags).join('\n');
      form.hidden = false;
      input.focus();
    },
  };
}
