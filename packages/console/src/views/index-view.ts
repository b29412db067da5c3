import type { ApiClient } from '../api-client.js';
import type { ConsoleState } from '../console-state.js';
import { confirmAction, messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';

/** Picks an index from the service's list, names a new one (created by its first upload), or deletes one. */
export function indexView(api: ApiClient, state: ConsoleState): HTMLElement {
  const message = messageArea();
  const select = h('select', { name: 'index', onchange: () => (state.index = select.value) });
  const newName = h('input', { type: 'text', name: 'new-index', autocomplete: 'off', spellcheck: 'false', placeholder: 'e.g. handbook' });
  const current = h('strong', { class: 'current-index' }, state.index);

  const render = (names: string[]) => {
    const all = [...new Set([...names, state.index])].sort();
    replaceChildren(select, ...all.map((name) => h('option', { value: name, selected: name === state.index }, name)));
  };
  const refresh = async () => {
    try {
      render(await api.listIndexes());
    } catch (error) {
      render([]);
      message.error(`Could not list the indexes: ${(error as Error).message}`);
    }
  };
  state.onIndexChange((index) => {
    current.textContent = index;
    if (![...select.options].some((o) => o.value === index)) select.append(h('option', { value: index }, index));
    select.value = index;
  });

  const useNew = (event: Event) => {
    event.preventDefault();
    const name = newName.value.trim();
    if (!name) return;
    state.index = name;
    newName.value = '';
    message.info(`Index "${name}" is selected: it is created by its first upload.`);
  };
  const deleteIndex = async () => {
    const index = state.index;
    if (
      !(await confirmAction('Delete index', `Delete the index "${index}" and every document in it? This cannot be undone.`, 'Delete index'))
    )
      return;
    try {
      await api.deleteIndex(index);
      message.info(`Deletion of index "${index}" requested.`);
      await refresh();
    } catch (error) {
      message.error(`Could not delete index "${index}": ${(error as Error).message}`);
    }
  };

  void refresh();
  return h(
    'section',
    { id: 'index', 'aria-labelledby': 'index-title' },
    h('h2', { id: 'index-title' }, 'Index'),
    h('p', {}, 'Working in ', current, '.'),
    h(
      'div',
      { class: 'row' },
      field('Index', select),
      h('button', { type: 'button', class: 'secondary', onclick: () => void refresh() }, 'Refresh list'),
    ),
    h('form', { class: 'row', onsubmit: useNew }, field('New index name', newName), h('button', { type: 'submit' }, 'Use new index')),
    h('div', { class: 'row' }, h('button', { type: 'button', class: 'danger', onclick: () => void deleteIndex() }, 'Delete index…')),
    message.element,
  );
}
