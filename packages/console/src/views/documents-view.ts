import type { ApiClient } from '../api-client.js';
import type { DataPipelineStatus } from '@km/wire';
import type { ConsoleState } from '../console-state.js';
import { confirmAction, messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';

/** A document the console follows. */
export interface TrackedDocument {
  index: string;
  documentId: string;
  /** What was uploaded (file names or the URL). */
  label: string;
}

/** Adds documents to the pipeline view. */
export interface DocumentTracker {
  track(document: TrackedDocument): void;
}

const STORAGE_KEY = 'km-console-documents';
const POLL_MS = 700;

/**
 * The pipeline view: one card per document uploaded in this tab (or looked up by id), polling
 * `GET /upload-status` until it completes, fails or is deleted: steps done and remaining,
 * failures with reasons and failed files, and a delete button with confirmation.
 */
export function documentsView(api: ApiClient, state: ConsoleState): { element: HTMLElement; tracker: DocumentTracker } {
  const message = messageArea();
  const list = h('ul', { class: 'documents', 'aria-label': 'Documents' });
  const empty = h('p', { class: 'muted' }, 'No document yet: upload one, or look one up by its ID.');
  const cards = new Map<string, DocumentCard>();

  const save = () => sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...cards.values()].map((c) => c.document)));
  const track = (document: TrackedDocument) => {
    const key = `${document.index}\u0000${document.documentId}`;
    cards.get(key)?.dispose();
    const card = new DocumentCard(api, document, {
      onError: (text) => message.error(text),
      onRemove: () => {
        cards.delete(key);
        card.element.remove();
        empty.hidden = cards.size > 0;
        save();
      },
    });
    cards.set(key, card);
    list.prepend(card.element);
    empty.hidden = true;
    save();
  };

  const lookupId = h('input', { type: 'text', name: 'document-id', autocomplete: 'off', spellcheck: 'false' });
  const lookup = (event: Event) => {
    event.preventDefault();
    const documentId = lookupId.value.trim();
    if (!documentId) return;
    track({ index: state.index, documentId, label: documentId });
    lookupId.value = '';
  };

  for (const document of readSaved()) track(document);
  const element = h(
    'section',
    { id: 'documents', 'aria-labelledby': 'documents-title' },
    h('h2', { id: 'documents-title' }, 'Documents'),
    h(
      'form',
      { class: 'row', onsubmit: lookup },
      field('Document ID', lookupId, 'Follow a document of the chosen index by its ID.'),
      h('button', { type: 'submit', class: 'secondary' }, 'Show status'),
    ),
    message.element,
    empty,
    list,
  );
  return { element, tracker: { track } };
}

function readSaved(): TrackedDocument[] {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as unknown;
    return Array.isArray(saved) ? (saved as TrackedDocument[]).reverse() : [];
  } catch {
    return [];
  }
}

/** One document's card, polling its status while the pipeline runs. */
class DocumentCard {
  readonly element: HTMLLIElement;
  private readonly stateText = h('p', { class: 'state', role: 'status' }, 'Waiting for the pipeline…');
  private readonly progress = h('progress', { max: 1, value: 0 });
  private readonly steps = h('ol', { class: 'steps' });
  private readonly failures = h('div', { class: 'failures' });
  private readonly deleteButton: HTMLButtonElement;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deleting = false;
  private seen = false;
  private misses = 0;
  private disposed = false;

  constructor(
    private readonly api: ApiClient,
    readonly document: TrackedDocument,
    private readonly events: { onError(text: string): void; onRemove(): void },
  ) {
    this.progress.setAttribute('aria-label', `Pipeline progress of ${document.documentId}`);
    this.deleteButton = h('button', { type: 'button', class: 'danger', onclick: () => void this.delete() }, 'Delete document…');
    const removeButton = h('button', { type: 'button', class: 'secondary', onclick: () => this.remove() }, 'Hide');
    this.element = h(
      'li',
      { class: 'document', 'data-document-id': document.documentId, 'data-state': 'pending' },
      h('h3', {}, document.label),
      h('p', { class: 'muted' }, `ID ${document.documentId} in index "${document.index}"`),
      this.stateText,
      this.progress,
      this.steps,
      this.failures,
      h('div', { class: 'actions' }, this.deleteButton, removeButton),
    );
    void this.poll();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
  }

  private remove(): void {
    this.dispose();
    this.events.onRemove();
  }

  private async poll(): Promise<void> {
    if (this.disposed) return;
    let status: DataPipelineStatus | undefined;
    try {
      status = await this.api.documentStatus(this.document.index, this.document.documentId);
    } catch (error) {
      this.setState('error', `Could not read the status: ${(error as Error).message}`);
      this.timer = setTimeout(() => void this.poll(), POLL_MS * 4);
      return;
    }
    if (this.disposed) return;
    // A status not found yet may still come (a queue that stores it late): look a few more times.
    if (!status && !this.deleting && !this.seen && ++this.misses < 5) {
      this.timer = setTimeout(() => void this.poll(), POLL_MS);
      return;
    }
    if (!status) {
      this.setState(
        this.deleting ? 'deleted' : 'not-found',
        this.deleting ? 'Deleted.' : 'Not found in this index (deleted, or never uploaded).',
      );
      this.deleteButton.hidden = true;
      this.progress.hidden = true;
      return;
    }
    this.seen = true;
    this.render(status);
    if (this.deleting || (!status.completed && !status.failed)) this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  private render(status: DataPipelineStatus): void {
    const done = new Set(status.completed_steps);
    const total = status.steps.length;
    this.progress.max = Math.max(total, 1);
    this.progress.value = status.completed_steps.length;
    replaceChildren(
      this.steps,
      ...status.steps.map((step) =>
        h('li', { class: done.has(step) ? 'done' : 'remaining' }, `${step}: ${done.has(step) ? 'done' : 'remaining'}`),
      ),
    );
    const failedFiles = status.failed_files ?? [];
    replaceChildren(
      this.failures,
      status.error ? h('p', { class: 'error' }, `Reason: ${status.error}`) : null,
      failedFiles.length
        ? h('ul', { class: 'failed-files', 'aria-label': 'Failed files' }, ...failedFiles.map((f) => h('li', {}, `${f.name}: ${f.error}`)))
        : null,
    );
    if (this.deleting) this.setState('deleting', 'Deleting…');
    else if (status.failed) this.setState('failed', `Failed after ${status.completed_steps.length} of ${total} steps.`);
    else if (status.completed) this.setState('completed', `Completed: ${total} of ${total} steps done.`);
    else
      this.setState(
        'running',
        `In progress: ${status.completed_steps.length} of ${total} steps done, ${status.remaining_steps.length} remaining.`,
      );
  }

  private setState(state: string, text: string): void {
    this.element.dataset.state = state;
    this.stateText.textContent = text;
  }

  private async delete(): Promise<void> {
    const { index, documentId } = this.document;
    const confirmed = await confirmAction(
      'Delete document',
      `Delete the document "${documentId}" from the index "${index}"? This cannot be undone.`,
      'Delete document',
    );
    if (!confirmed) return;
    try {
      await this.api.deleteDocument(index, documentId);
    } catch (error) {
      this.events.onError(`Could not delete "${documentId}": ${(error as Error).message}`);
      return;
    }
    this.deleting = true;
    this.deleteButton.disabled = true;
    this.setState('deleting', 'Deleting…');
    clearTimeout(this.timer);
    void this.poll();
  }
}
