import type { ApiClient } from '../api-client.js';
import type { DocumentList, DocumentState, MemoryFilterJson } from '@km/wire';
import type { ConsoleState } from '../console-state.js';
import { messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';
import { parseFilters } from '../filters.js';
import { PageCursors } from '../page-cursors.js';
import { DocumentRow } from './document-row.js';

/** Tells the index browser of a document just uploaded, so that it lists it and follows its pipeline. */
export interface DocumentTracker {
  track(document: { index: string; documentId: string }): void;
}

const POLL_MS = 700;
/** How many listings wait for an uploaded document the page does not show yet. */
const EXPECTED_TRIES = 5;
const PAGE_SIZES = [100, 50, 10] as const;
const STATES: ReadonlyArray<[DocumentState | '', string]> = [
  ['', 'Any state'],
  ['completed', 'Completed'],
  ['in_progress', 'In progress'],
  ['failed', 'Failed'],
  ['deleting', 'Deleting'],
];

/**
 * The index browser: the chosen index's documents from `GET /documents`, a page at a time
 * (next and previous through the service's cursors), filtered by state and by tags (KM filter
 * syntax, as in search). Listed again while a document is ingested or deleted, and after an
 * upload or an action of a row.
 */
export function documentsView(api: ApiClient, state: ConsoleState): { element: HTMLElement; tracker: DocumentTracker } {
  const message = messageArea();
  const stateSelect = h('select', { name: 'document-state' }, ...STATES.map(([value, label]) => h('option', { value }, label)));
  const tagInput = h('input', {
    type: 'text',
    name: 'document-tags-filter',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'topic:space, !draft',
  });
  const pageSize = h('select', { name: 'page-size' }, ...PAGE_SIZES.map((n) => h('option', { value: n }, String(n))));
  const list = h('ul', { class: 'documents', 'aria-label': 'Documents' });
  const summary = h('p', { class: 'muted', role: 'status' });
  const previous = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Next page');
  const cursors = new PageCursors();
  const rows = new Map<string, DocumentRow>();
  /** Documents uploaded in this tab that the page does not list yet: listings left to wait for each. */
  const expected = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Answers of a listing started before the last one are dropped. */
  let generation = 0;

  const events = {
    onError: (text: string) => message.error(text),
    onInfo: (text: string) => message.info(text),
    onChanged: () => void refresh(),
  };

  const render = (page: DocumentList) => {
    const seen = new Set<string>();
    const ordered = page.documents.map((document) => {
      seen.add(document.documentId);
      expected.delete(document.documentId);
      const row = rows.get(document.documentId);
      if (row) {
        row.update(document);
        return row;
      }
      const created = new DocumentRow(api, document, events);
      rows.set(document.documentId, created);
      return created;
    });
    for (const id of [...rows.keys()]) if (!seen.has(id)) rows.delete(id);
    replaceChildren(list, ...ordered.map((row) => row.element));
    cursors.received(page.nextCursor);
    previous.disabled = !cursors.hasPrevious;
    next.disabled = !cursors.hasNext;
    const news = page.documents.length
      ? `Page ${cursors.pageNumber}: ${page.documents.length} document(s) in "${page.index}".`
      : cursors.hasNext
        ? `Page ${cursors.pageNumber}: no document matches here; there are more pages.`
        : `No document in "${page.index}" matches.`;
    // Said once: a listing repeated while documents are ingested does not announce it again.
    if (summary.textContent !== news) summary.textContent = news;
  };

  const refresh = async (): Promise<void> => {
    clearTimeout(timer);
    const mine = ++generation;
    let filters: MemoryFilterJson[];
    try {
      filters = parseFilters(tagInput.value);
    } catch (error) {
      message.error((error as Error).message);
      return;
    }
    let page: DocumentList;
    try {
      page = await api.listDocuments({
        index: state.index,
        limit: Number(pageSize.value),
        ...(cursors.current ? { cursor: cursors.current } : {}),
        states: stateSelect.value ? [stateSelect.value as DocumentState] : [],
        filters,
      });
    } catch (error) {
      if (mine !== generation) return;
      message.error(`Could not list the documents: ${(error as Error).message}`);
      return;
    }
    if (mine !== generation) return;
    render(page);
    for (const [id, tries] of expected)
      if (tries <= 1) expected.delete(id);
      else expected.set(id, tries - 1);
    const busy = page.documents.some((d) => d.state === 'in_progress' || d.state === 'deleting');
    if (busy || expected.size > 0) timer = setTimeout(() => void refresh(), POLL_MS);
  };

  const firstPage = () => {
    cursors.reset();
    void refresh();
  };
  previous.addEventListener('click', () => cursors.back() && void refresh());
  next.addEventListener('click', () => cursors.forward() && void refresh());
  stateSelect.addEventListener('change', firstPage);
  pageSize.addEventListener('change', firstPage);
  state.onIndexChange(() => {
    message.clear();
    expected.clear();
    firstPage();
  });

  const element = h(
    'section',
    { id: 'documents', 'aria-labelledby': 'documents-title' },
    h('h2', { id: 'documents-title' }, 'Documents'),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (event: Event) => {
          event.preventDefault();
          message.clear();
          firstPage();
        },
      },
      field('State', stateSelect),
      field('Tag filter', tagInput, 'key:value tags separated by commas must all match; !key:value excludes.'),
      field('Per page', pageSize),
      h('button', { type: 'submit', class: 'secondary' }, 'Refresh'),
    ),
    message.element,
    summary,
    list,
    h('div', { class: 'actions pager' }, previous, next),
  );
  void refresh();
  return {
    element,
    tracker: {
      track(document) {
        if (document.index !== state.index) return;
        expected.set(document.documentId, EXPECTED_TRIES);
        void refresh();
      },
    },
  };
}
