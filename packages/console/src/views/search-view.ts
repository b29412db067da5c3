import type { ApiClient } from '../api-client.js';
import type { ConsoleState } from '../console-state.js';
import { messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';
import { citationList } from './citation-list.js';
import { filterField } from './filter-field.js';

/** `POST /search` in the chosen index, with tag filters, a relevance floor and a limit; results show relevance. */
export function searchView(api: ApiClient, state: ConsoleState): HTMLElement {
  const message = messageArea();
  const query = h('input', { type: 'search', name: 'query', required: true, autocomplete: 'off' });
  const filters = filterField('search-filters');
  const minRelevance = h('input', { type: 'number', name: 'min-relevance', min: -1, max: 1, step: 0.01, value: 0 });
  const limit = h('input', { type: 'number', name: 'limit', min: 1, max: 100, step: 1, value: 10 });
  const results = h('div', { class: 'results', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Search');

  const search = async (event: Event) => {
    event.preventDefault();
    message.clear();
    let wireFilters: ReturnType<typeof filters.read>;
    try {
      wireFilters = filters.read();
    } catch (error) {
      message.error((error as Error).message);
      return;
    }
    submit.disabled = true;
    try {
      const found = await api.search({
        index: state.index,
        query: query.value,
        filters: wireFilters,
        minRelevance: Number(minRelevance.value) || 0,
        limit: Math.max(1, Math.trunc(Number(limit.value)) || 10),
      });
      const count = found.results.reduce((n, c) => n + c.partitions.length, 0);
      replaceChildren(
        results,
        h('p', { class: 'summary' }, found.noResult ? 'No result.' : `${count} passage(s) in ${found.results.length} file(s).`),
        citationList(api, found.results, (text) => message.error(text)),
      );
    } catch (error) {
      replaceChildren(results);
      message.error(`Search failed: ${(error as Error).message}`);
    } finally {
      submit.disabled = false;
    }
  };

  return h(
    'section',
    { id: 'search', 'aria-labelledby': 'search-title' },
    h('h2', { id: 'search-title' }, 'Search'),
    h(
      'form',
      { onsubmit: (event: Event) => void search(event) },
      field('Query', query),
      filters.element,
      h('div', { class: 'row' }, field('Minimum relevance', minRelevance), field('Limit', limit)),
      h('div', { class: 'actions' }, submit),
    ),
    message.element,
    results,
  );
}
