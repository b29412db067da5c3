import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startStdioSession, structuredOf, textOf, type StdioSession } from './helpers.js';

interface Passage {
  text: string;
  relevance: number;
  partitionNumber: number;
  tags: Record<string, Array<string | null>>;
}
interface SearchView {
  query: string;
  noResult: boolean;
  results: Array<{ documentId: string; index: string; fileName: string; link: string; sourceUrl?: string; partitions: Passage[] }>;
}
interface AskView {
  answer: string;
  noResult: boolean;
  sources: Array<{ documentId: string; fileName: string; link: string; relevance: number }>;
}

const ALL_TOOLS = [
  'ask',
  'delete_document',
  'get_document_status',
  'import_text',
  'import_url',
  'list_documents',
  'list_indexes',
  'search',
  'update_document_tags',
];

describe('the MCP server over stdio', () => {
  let session: StdioSession;
  beforeAll(async () => {
    session = await startStdioSession();
    await session.client.listTools(); // the client checks structured results against the output schemas it lists
  });
  afterAll(() => session?.close());

  it('lists every tool, with a JSON schema that describes each argument', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
      }
    }
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['filters', 'index', 'limit', 'minRelevance', 'query']);
    expect(tools.find((t) => t.name === 'delete_document')!.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'ask')!.annotations?.readOnlyHint).toBe(true);
  });

  it('imports a text that search then finds, with a citation', async () => {
    const imported = await call(session.client, 'import_text', {
      text: 'The Hubble Space Telescope was launched in 1990 aboard the shuttle Discovery.',
      documentId: 'hubble',
      index: 'Space Notes',
      tags: { topic: 'telescopes', year: ['1990', 'launch'] },
    });
    expect(structuredOf(imported)).toEqual({ documentId: 'hubble', index: 'space-notes', state: 'completed' });
    expect(textOf(imported)).toMatch(/hubble.*space-notes/);

    const result = await call(session.client, 'search', { query: 'When was the Hubble telescope launched?', index: 'space-notes' });
    const view = structuredOf<SearchView>(result);
    expect(view.noResult).toBe(false);
    const [citation] = view.results;
    expect(citation).toMatchObject({
      documentId: 'hubble',
      index: 'space-notes',
      fileName: 'content.txt',
      link: expect.stringContaining('hubble'),
    });
    expect(citation!.partitions[0]!.text).toContain('launched in 1990');
    expect(citation!.partitions[0]!.relevance).toBeGreaterThan(0);
    expect(citation!.partitions[0]!.tags).toEqual({ topic: ['telescopes'], year: ['1990', 'launch'] });
    expect(textOf(result)).toContain('[1] content.txt (document hubble, index space-notes');
    expect(textOf(result)).toContain('launched in 1990');
  });

  it('filters by tags: keys ANDed, objects ORed, "!" excludes', async () => {
    const docs = {
      a: { text: 'Apples grow in orchards of the north.', tags: { user: 'alice', type: 'fruit' } },
      b: { text: 'Apples are pressed into cider.', tags: { user: 'bob', type: 'fruit' } },
      c: { text: 'Apples appear in many old recipes.', tags: { user: 'alice', type: 'recipe' } },
    };
    for (const [documentId, doc] of Object.entries(docs)) {
      structuredOf(await call(session.client, 'import_text', { ...doc, documentId, index: 'filters' }));
    }
    const found = async (filters: unknown) => {
      const view = structuredOf<SearchView>(await call(session.client, 'search', { query: 'apples', index: 'filters', filters }));
      return view.results.map((r) => r.documentId).sort();
    };
    expect(await found(undefined)).toEqual(['a', 'b', 'c']);
    expect(await found([{ user: 'alice' }])).toEqual(['a', 'c']);
    expect(await found([{ user: 'alice', type: 'fruit' }])).toEqual(['a']);
    expect(await found([{ user: 'alice', type: 'fruit' }, { user: 'bob' }])).toEqual(['a', 'b']);
    expect(await found([{ '!user': 'alice' }])).toEqual(['b']);
    expect(await found([{ type: ['fruit', 'recipe'] }])).toEqual([]);
    const asked = structuredOf<AskView>(
      await call(session.client, 'ask', { question: 'Are apples pressed into cider?', index: 'filters', filters: [{ user: 'bob' }] }),
    );
    expect(asked.sources.map((s) => s.documentId)).toEqual(['b']);
  });

  it('answers a question with text and its sources', async () => {
    const result = await call(session.client, 'ask', { question: 'When was Hubble launched?', index: 'space-notes' });
    const view = structuredOf<AskView>(result);
    expect(view.noResult).toBe(false);
    expect(view.answer).toContain('1990');
    expect(view.sources).toEqual([expect.objectContaining({ documentId: 'hubble', fileName: 'content.txt' })]);
    expect(textOf(result)).toMatch(/1990[\s\S]*Sources:\n\[1\] content\.txt \(document hubble, index space-notes\)/);
    // Listed once: the extractive answer's quotes cite "[1]" rather than listing sources again.
    expect(textOf(result).match(/Sources:/g)).toHaveLength(1);

    const nothing = structuredOf<AskView>(
      await call(session.client, 'ask', { question: 'Who painted the Mona Lisa?', index: 'empty-index' }),
    );
    expect(nothing.noResult).toBe(true);
    expect(nothing.sources).toEqual([]);
  });

  it('imports a web page by URL, with its address in the citation', async () => {
    const web: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Kiwi</title></head><body><p>The kiwi is a flightless bird of New Zealand.</p></body></html>');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/kiwi.html`;
      const imported = structuredOf(await call(session.client, 'import_url', { url, documentId: 'kiwi', index: 'web' }));
      expect(imported).toEqual({ documentId: 'kiwi', index: 'web', state: 'completed' });
      const view = structuredOf<SearchView>(await call(session.client, 'search', { query: 'flightless bird', index: 'web' }));
      expect(view.results[0]).toMatchObject({ documentId: 'kiwi', sourceUrl: url });
      expect(view.results[0]!.partitions[0]!.text).toContain('flightless bird');
    } finally {
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it('lists indexes, tells document status, deletes a document', async () => {
    structuredOf(
      await call(session.client, 'import_text', { text: 'Temporary note about comets.', documentId: 'comet', index: 'scratch' }),
    );
    const indexes = structuredOf<{ indexes: string[] }>(await call(session.client, 'list_indexes'));
    expect(indexes.indexes).toEqual(expect.arrayContaining(['space-notes', 'filters', 'scratch']));

    const status = structuredOf(await call(session.client, 'get_document_status', { documentId: 'comet', index: 'scratch' }));
    expect(status).toMatchObject({
      documentId: 'comet',
      index: 'scratch',
      state: 'completed',
      ready: true,
      remainingSteps: [],
      completedSteps: ['extract', 'partition', 'gen_embeddings', 'save_records'],
    });

    expect(structuredOf(await call(session.client, 'delete_document', { documentId: 'comet', index: 'scratch' }))).toEqual({
      documentId: 'comet',
      index: 'scratch',
      deleted: true,
    });
    const after = structuredOf<SearchView>(await call(session.client, 'search', { query: 'comets', index: 'scratch' }));
    expect(after.results).toEqual([]);
    const gone = await call(session.client, 'get_document_status', { documentId: 'comet', index: 'scratch' });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toMatch(/^Document not found: /);
  });

  it('answers bad arguments with tool errors and keeps serving', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['search', {}, /Invalid arguments for tool search[\s\S]*query/],
      ['search', { query: 'x', limit: 0 }, /Invalid arguments for tool search[\s\S]*limit/],
      ['search', { query: 'x', minRelevance: 'high' }, /Invalid arguments for tool search/],
      ['search', { query: 'x', filters: { user: 'alice' } }, /Invalid arguments for tool search[\s\S]*filters/],
      ['search', { query: 'x', index: 'bad*index' }, /^Invalid index name: index name "bad\*index" is invalid/],
      ['search', { query: 'x', filters: [{ __nope: 'v' }] }, /^Invalid filter: filter key "__nope" is not a reserved tag/],
      ['ask', { question: '' }, /Invalid arguments for tool ask/],
      ['ask', { question: '   ' }, /^Invalid argument: /],
      ['import_text', { text: 'x', tags: { 'a:b': 'c' } }, /^Invalid tag: /],
      ['import_text', { text: 'x', documentId: '../up' }, /^Invalid document id: /],
      ['import_url', { url: 'ftp://example.com/file.txt' }, /^Invalid argument: /],
      [
        'get_document_status',
        { documentId: 'no-such-document' },
        /^Document not found: there is no document "no-such-document" in index "default"/,
      ],
      ['delete_document', { documentId: 'no-such-document', index: 'space-notes' }, /^Document not found: /],
      ['no_such_tool', {}, /Tool no_such_tool not found/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(session.client, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result), `${tool} ${JSON.stringify(args)}`).toMatch(message);
    }
    const still = structuredOf<SearchView>(await call(session.client, 'search', { query: 'Hubble', index: 'space-notes' }));
    expect(still.results[0]?.documentId).toBe('hubble');
  });

  it('writes nothing but the protocol on stdout: console output goes to stderr', () => {
    expect(session.stderr()).toContain('stdio fixture: console.log goes to stderr');
  });
});

describe('the MCP server over stdio in read-only mode', () => {
  let session: StdioSession;
  beforeAll(async () => {
    session = await startStdioSession({ KM_MCP_READ_ONLY: 'true', KM_MCP_DEFAULT_INDEX: 'Shelf' });
  });
  afterAll(() => session?.close());

  it('lists only the tools that read, and refuses the others', async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'get_document_status', 'list_documents', 'list_indexes', 'search']);
    const refused = await call(session.client, 'import_text', { text: 'Not stored.' });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/Tool import_text not found/);
    expect(structuredOf<{ indexes: string[] }>(await call(session.client, 'list_indexes')).indexes).toEqual([]);
  });

  it('uses the default index when a call names none', async () => {
    const missing = await call(session.client, 'get_document_status', { documentId: 'x' });
    expect(textOf(missing)).toContain('in index "shelf"');
  });
});

describe('the stdio server lifecycle', () => {
  it('ends when the client closes stdin', async () => {
    const session = await startStdioSession();
    await session.client.listTools();
    await session.close();
    await expect.poll(() => session.stderr(), { timeout: 10_000 }).toContain('stdio fixture: closed');
  });
});
