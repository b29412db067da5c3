import {
  HashingEmbeddingGenerator,
  KernelMemoryBuilder,
  silentLogger,
  type DataPipeline,
  type IPipelineStepHandler,
  type MemoryServerless,
  type StepOutcome,
} from '@km/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryMcpServer } from '../src/index.js';
import { call, structuredOf, textOf } from './helpers.js';

interface DocumentView {
  documentId: string;
  index: string;
  state: string;
  tags: Record<string, Array<string | null>>;
  files: Array<{ name: string; size: number; mimeType: string }>;
}
interface ListView {
  index: string;
  documents: DocumentView[];
  nextCursor: string | null;
}

/** A pipeline step that holds documents until `open()`; `entered` resolves once one reached it (it is then in progress). */
class GateStep implements IPipelineStepHandler {
  readonly stepName = 'gate';
  private release!: () => void;
  private enter!: () => void;
  readonly entered = new Promise<void>((resolve) => {
    this.enter = resolve;
  });
  private readonly opened = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  open(): void {
    this.release();
  }

  async invoke(pipeline: DataPipeline): Promise<StepOutcome> {
    this.enter();
    await this.opened;
    return { result: 'success', pipeline };
  }
}

const NOTES: Array<[string, string, Record<string, string | string[]>]> = [
  ['note-1', 'Otters hold hands while they sleep.', { kind: 'animal', team: 'zoo' }],
  ['note-2', 'Basalt forms when lava cools quickly.', { kind: 'rock' }],
  ['note-3', 'Owls can turn their heads very far.', { kind: 'animal' }],
];

describe('list_documents and update_document_tags over the in-memory transport', () => {
  const gate = new GateStep();
  let memory: MemoryServerless;
  let client: Client;

  beforeAll(async () => {
    memory = new KernelMemoryBuilder()
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withHandler(gate)
      .withLogger(silentLogger)
      .build();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await createMemoryMcpServer(memory, { defaultIndex: 'Field Notes' }).connect(serverTransport);
    client = new Client({ name: 'km-mcp-test', version: '1.0.0' });
    await client.connect(clientTransport);
    await client.listTools(); // the client checks structured results against the output schemas it lists
    for (const [documentId, text, tags] of NOTES) structuredOf(await call(client, 'import_text', { text, documentId, tags }));
  });
  afterAll(async () => {
    gate.open();
    await client.close();
  });

  it('lists the tools with described arguments; list_documents reads, update_document_tags writes', async () => {
    const { tools } = await client.listTools();
    const list = tools.find((t) => t.name === 'list_documents')!;
    expect(Object.keys(list.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'filters', 'index', 'limit', 'states']);
    expect(list.annotations?.readOnlyHint).toBe(true);
    const update = tools.find((t) => t.name === 'update_document_tags')!;
    expect(update.inputSchema.required?.sort()).toEqual(['documentId', 'tags']);
    expect(update.annotations?.readOnlyHint).toBe(false);
  });

  it('lists a page of documents with state, tags and files, and the cursor of the next page', async () => {
    const first = await call(client, 'list_documents', { limit: 2 });
    const view = structuredOf<ListView>(first);
    expect(view.index).toBe('field-notes'); // the server's default index
    expect(view.documents.map((d) => d.documentId)).toEqual(['note-1', 'note-2']);
    expect(view.documents[0]).toMatchObject({
      state: 'completed',
      tags: { kind: ['animal'], team: ['zoo'] },
      files: [{ name: 'content.txt', size: Buffer.byteLength(NOTES[0]![1]), mimeType: 'text/plain' }],
    });
    expect(view.nextCursor).toEqual(expect.any(String));
    expect(textOf(first)).toMatch(
      /^2 document\(s\) in index field-notes:\n- note-1: completed; tags: kind:animal, team:zoo; files: content\.txt/,
    );
    expect(textOf(first)).toContain(`call list_documents again with cursor "${view.nextCursor}"`);

    const second = structuredOf<ListView>(await call(client, 'list_documents', { limit: 2, cursor: view.nextCursor }));
    expect(second.documents.map((d) => d.documentId)).toEqual(['note-3']);
    expect(second.nextCursor).toBeNull();
  });

  it('filters by tags as search does, and by state', async () => {
    const ids = async (args: Record<string, unknown>) =>
      structuredOf<ListView>(await call(client, 'list_documents', args)).documents.map((d) => d.documentId);
    expect(await ids({ filters: [{ kind: 'animal' }] })).toEqual(['note-1', 'note-3']);
    expect(await ids({ filters: [{ kind: 'animal', '!team': 'zoo' }] })).toEqual(['note-3']);
    expect(await ids({ filters: [{ kind: 'rock' }, { team: 'zoo' }] })).toEqual(['note-1', 'note-2']);
    expect(await ids({ states: ['completed'] })).toHaveLength(3);
    expect(await ids({ states: ['failed'] })).toEqual([]);
    expect(textOf(await call(client, 'list_documents', { states: ['failed'] }))).toBe('No documents in index field-notes match.');
  });

  it('replaces the tags of a document: the listing and search see the new ones', async () => {
    const result = await call(client, 'update_document_tags', { documentId: 'note-2', tags: { kind: 'mineral', checked: ['2026'] } });
    expect(structuredOf<DocumentView>(result)).toMatchObject({
      documentId: 'note-2',
      index: 'field-notes',
      state: 'completed',
      tags: { kind: ['mineral'], checked: ['2026'] },
    });
    expect(textOf(result)).toMatch(
      /^Tags of document note-2 in index field-notes replaced\. note-2: completed; tags: kind:mineral, checked:2026/,
    );
    const listed = structuredOf<ListView>(await call(client, 'list_documents', { filters: [{ kind: 'mineral' }] }));
    expect(listed.documents.map((d) => d.documentId)).toEqual(['note-2']);
    const found = structuredOf<{ results: Array<{ documentId: string }> }>(
      await call(client, 'search', { query: 'lava cools basalt', filters: [{ checked: '2026' }] }),
    );
    expect(found.results.map((r) => r.documentId)).toEqual(['note-2']);
  });

  it('reports bad arguments, unknown and busy documents as tool errors', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['list_documents', { limit: 0 }, /Invalid arguments for tool list_documents[\s\S]*limit/],
      ['list_documents', { states: ['done'] }, /Invalid arguments for tool list_documents[\s\S]*states/],
      ['list_documents', { cursor: 'not-a-cursor' }, /^Invalid argument: cursor "not-a-cursor" is not a cursor of this listing/],
      ['list_documents', { filters: [{ __nope: 'x' }] }, /^Invalid filter: /],
      ['update_document_tags', { documentId: 'note-1' }, /Invalid arguments for tool update_document_tags[\s\S]*tags/],
      ['update_document_tags', { documentId: 'note-1', tags: { __document_id: 'x' } }, /^Invalid tag: /],
      [
        'update_document_tags',
        { documentId: 'nobody', tags: {} },
        /^Document not found: document "nobody" not found in index "field-notes"/,
      ],
    ];
    for (const [tool, args, message] of cases) {
      const result = await call(client, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(textOf(result), `${tool} ${JSON.stringify(args)}`).toMatch(message);
    }

    const ingesting = memory.importText('Held at the gate.', {
      documentId: 'held',
      index: 'field-notes',
      steps: ['extract', 'gate', 'partition'],
    });
    await gate.entered;
    const busy = await call(client, 'update_document_tags', { documentId: 'held', tags: { kind: 'late' } });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toMatch(/^Document busy \(try again once its ingestion or deletion is done\): document "held" is being ingested/);
    const inProgress = structuredOf<ListView>(await call(client, 'list_documents', { states: ['in_progress'] }));
    expect(inProgress.documents.map((d) => [d.documentId, d.state])).toEqual([['held', 'in_progress']]);
    gate.open();
    await ingesting;
    expect(
      structuredOf<DocumentView>(await call(client, 'update_document_tags', { documentId: 'held', tags: { kind: 'late' } })).tags,
    ).toEqual({
      kind: ['late'],
    });
  });
});
