import './styles.css';
import { ApiClient } from './api-client.js';
import { ConsoleState } from './console-state.js';
import { promptForKey } from './dialogs.js';
import { h } from './dom.js';
import { askView } from './views/ask-view.js';
import { documentsView } from './views/documents-view.js';
import { indexView } from './views/index-view.js';
import { searchView } from './views/search-view.js';
import { syncView } from './views/sync-view.js';
import { uploadView } from './views/upload-view.js';

/** Served at `{service}/ui/`: the API is the service's root. */
function serviceRoot(): string {
  return location.pathname.replace(/ui\/[^/]*$/, '') || '/';
}

/** The access-key header name the service gave in `settings.json` (default `Authorization`). */
async function readAuthHeader(): Promise<string> {
  try {
    const res = await fetch('settings.json', { cache: 'no-store' });
    if (!res.ok) return 'Authorization';
    const settings = (await res.json()) as { authHeader?: unknown };
    return typeof settings.authHeader === 'string' && settings.authHeader ? settings.authHeader : 'Authorization';
  } catch {
    return 'Authorization';
  }
}

async function start(): Promise<void> {
  const authHeader = await readAuthHeader();
  const api = new ApiClient({ baseUrl: serviceRoot(), authHeader, askForKey: (reason) => promptForKey(reason, authHeader) });
  const state = new ConsoleState(sessionStorage.getItem('km-console-index') ?? 'default');
  state.onIndexChange((index) => sessionStorage.setItem('km-console-index', index));
  const documents = documentsView(api, state);
  const nav = h(
    'nav',
    { 'aria-label': 'Sections' },
    h(
      'ul',
      {},
      ...[
        ['index', 'Index'],
        ['upload', 'Upload'],
        ['documents', 'Documents'],
        ['sync', 'Sync'],
        ['search', 'Search'],
        ['ask', 'Ask'],
      ].map(([id, label]) => h('li', {}, h('a', { href: `#${id}` }, label ?? ''))),
    ),
  );
  const main = h(
    'main',
    { id: 'main' },
    indexView(api, state),
    uploadView(api, state, documents.tracker),
    documents.element,
    syncView(api, state),
    searchView(api, state),
    askView(api, state),
  );
  document.body.replaceChildren(
    h('a', { href: '#main', class: 'skip-link' }, 'Skip to content'),
    h('header', {}, h('h1', {}, 'km console'), nav),
    main,
  );
  document.body.dataset.ready = 'true';
}

void start();
