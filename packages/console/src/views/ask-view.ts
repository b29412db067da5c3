import type { ApiClient } from '../api-client.js';
import type { Citation } from '@km/wire';
import type { ConsoleState } from '../console-state.js';
import { messageArea } from '../dialogs.js';
import { field, h, replaceChildren } from '../dom.js';
import { renderAnswer } from './answer-text.js';
import { citationList } from './citation-list.js';
import { filterField } from './filter-field.js';

/**
 * `POST /ask` with `stream: true`: the answer grows as it arrives, then its citations, listed
 * once. An extractive answer's quotes show as quotes, each with buttons that open the passage
 * it cites (its `[n]` is the n-th source of the list).
 */
export function askView(api: ApiClient, state: ConsoleState): HTMLElement {
  const message = messageArea();
  const question = h('textarea', { name: 'question', rows: 2, required: true });
  const filters = filterField('ask-filters');
  const answer = h('div', { class: 'answer', 'aria-live': 'polite', 'aria-busy': 'false' });
  const sources = h('div', { class: 'sources' });
  const submit = h('button', { type: 'submit' }, 'Ask');

  const ask = async (event: Event) => {
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
    answer.setAttribute('aria-busy', 'true');
    answer.dataset.state = 'streaming';
    replaceChildren(answer);
    replaceChildren(sources);
    let text = '';
    let reason = '';
    let citations: Citation[] = [];
    const openSource = (n: number) => {
      const item = sources.querySelectorAll<HTMLElement>('.citation')[n - 1];
      const toggle = item?.querySelector<HTMLButtonElement>('.passage button[aria-expanded]');
      if (!item || !toggle) return;
      if (toggle.getAttribute('aria-expanded') !== 'true') toggle.click();
      item.scrollIntoView({ block: 'nearest' });
    };
    const sourceName = (n: number) => citations[n - 1]?.sourceName;
    const show = () =>
      replaceChildren(answer, ...renderAnswer(text, openSource, sourceName), reason ? h('p', { class: 'muted' }, reason) : null);
    try {
      for await (const chunk of api.askStreaming({ index: state.index, question: question.value, filters: wireFilters })) {
        if (chunk.streamState === 'error') throw new Error(chunk.noResultReason ?? 'the answer failed');
        if (chunk.streamState === 'reset' || chunk.streamState === undefined) {
          text = chunk.text;
          citations = [...chunk.relevantSources];
        } else {
          text += chunk.text;
          citations.push(...chunk.relevantSources);
        }
        if (chunk.noResult && chunk.noResultReason) reason = chunk.noResultReason;
        show();
      }
      answer.dataset.state = 'done';
      if (citations.length)
        replaceChildren(
          sources,
          h('h3', {}, 'Sources'),
          citationList(api, citations, (t) => message.error(t)),
        );
    } catch (error) {
      answer.dataset.state = 'failed';
      message.error(`Ask failed: ${(error as Error).message}`);
    } finally {
      answer.setAttribute('aria-busy', 'false');
      submit.disabled = false;
    }
  };

  return h(
    'section',
    { id: 'ask', 'aria-labelledby': 'ask-title' },
    h('h2', { id: 'ask-title' }, 'Ask'),
    h(
      'form',
      { onsubmit: (event: Event) => void ask(event) },
      field('Question', question),
      filters.element,
      h('div', { class: 'actions' }, submit),
    ),
    message.element,
    answer,
    sources,
  );
}
