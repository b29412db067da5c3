import type { ApiClient } from '../api-client.js';
import type { DocumentSummary } from '@km/wire';
import { confirmAction } from '../dialogs.js';
import { h, replaceChildren } from '../dom.js';
import { tagStrings } from '../document-tags.js';
import { formatBytes, formatTime } from '../format.js';
import { reingestDocument } from '../reingest.js';
import { documentDetails } from './document-details.js';
import { tagEditor } from './tag-editor.js';

/** What a row asks of its index browser. */
export interface DocumentRowEvents {
  /** Shows an error of this row's actions. */
  onError(text: string): void;
  /** Shows news of this row's actions. */
  onInfo(text: string): void;
  /** The document changed on the service (deleted, ingested again): list the page again. */
  onChanged(): void;
}

/**
 * One document of the index browser: its id, state (steps while it is ingested, the reason
 * when it failed), tags, files and last update, updated in place as the page is listed again;
 * and its actions: details, edit tags, ingest again, delete (confirmed first).
 */
export class DocumentRow {
  readonly element: HTMLLIElement;
  private document: DocumentSummary;
  private readonly stateText = h('p', { class: 'state' });
  private readonly steps = h('ol', { class: 'steps' });
  private readonly failures = h('div', { class: 'failures' });
  private readonly tags = h('ul', { class: 'tags', 'aria-label': 'Tags' });
  private readonly files = h('ul', { class: 'files', 'aria-label': 'Files' });
  private readonly updated = h('time', {});
  private readonly buttons: HTMLButtonElement[];

  constructor(
    private readonly api: ApiClient,
    document: DocumentSummary,
    private readonly events: DocumentRowEvents,
  ) {
    this.document = document;
    const current = () => this.document;
    const editor = tagEditor(api, current, (updated) => {
      this.update(updated);
      events.onInfo(`Tags of "${updated.documentId}" saved.`);
    });
    this.buttons = [
      h('button', { type: 'button', class: 'secondary', onclick: () => editor.open() }, 'Edit tags'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void this.reingest() }, 'Ingest again'),
      h('button', { type: 'button', class: 'danger', onclick: () => void this.delete() }, 'Delete document…'),
    ];
    this.element = h(
      'li',
      { class: 'document', 'data-document-id': document.documentId },
      h('h3', {}, document.documentId),
      this.stateText,
      this.steps,
      this.failures,
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Tags'),
        h('dd', {}, this.tags),
        h('dt', {}, 'Files'),
        h('dd', {}, this.files),
        h('dt', {}, 'Last update'),
        h('dd', {}, this.updated),
      ),
      documentDetails(api, current, (text) => events.onError(text)),
      editor.element,
      h('div', { class: 'actions' }, ...this.buttons),
    );
    this.update(document);
  }

  get documentId(): string {
    return this.document.documentId;
  }

  /** Shows the document as the service lists it now. */
  update(document: DocumentSummary): void {
    this.document = document;
    const { state, steps, remainingSteps } = document;
    const done = steps.length - remainingSteps.length;
    const remaining = new Set(remainingSteps);
    this.element.dataset.state = state;
    this.stateText.textContent =
      state === 'completed'
        ? `Completed: ${steps.length} of ${steps.length} steps done.`
        : state === 'failed'
          ? `Failed after ${done} of ${steps.length} steps.`
          : state === 'deleting'
            ? 'Deleting…'
            : `In progress: ${done} of ${steps.length} steps done, ${remainingSteps.length} remaining.`;
    replaceChildren(
      this.steps,
      ...steps.map((step) => {
        const isDone = !remaining.has(step);
        return h('li', { class: isDone ? 'done' : 'remaining' }, `${step}: ${isDone ? 'done' : 'remaining'}`);
      }),
    );
    const failedFiles = document.files.filter((f) => f.error);
    replaceChildren(
      this.failures,
      document.error ? h('p', { class: 'error' }, `Reason: ${document.error}`) : null,
      failedFiles.length
        ? h(
            'ul',
            { class: 'failed-files', 'aria-label': 'Failed files' },
            ...failedFiles.map((f) => h('li', {}, `${f.name}: ${f.error ?? ''}`)),
          )
        : null,
    );
    const tags = tagStrings(document.tags);
    replaceChildren(this.tags, ...(tags.length ? tags.map((t) => h('li', { class: 'tag' }, t)) : [h('li', { class: 'muted' }, 'none')]));
    replaceChildren(this.files, ...document.files.map((f) => h('li', {}, `${f.name} (${formatBytes(f.size)})`)));
    this.updated.dateTime = document.lastUpdate;
    this.updated.textContent = formatTime(document.lastUpdate);
    for (const button of this.buttons) button.disabled = state === 'deleting';
  }

  private async reingest(): Promise<void> {
    const { documentId } = this.document;
    try {
      await reingestDocument(this.api, this.document);
    } catch (error) {
      this.events.onError(`Could not ingest "${documentId}" again: ${(error as Error).message}`);
      return;
    }
    this.events.onInfo(`"${documentId}" is being ingested again.`);
    this.events.onChanged();
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
    this.events.onInfo(`Deletion of "${documentId}" requested.`);
    this.events.onChanged();
  }
}
