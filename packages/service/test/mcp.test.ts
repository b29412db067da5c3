import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG, loadConfig } from '../src/index.js';
import { useTestService } from './helpers.js';

const KEY = 'mcp-test-access-key-'.padEnd(40, 'k');

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'km-service-mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function structuredOf<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** Waits until the document's status, asked through MCP, says completed. */
async function waitUntilReady(client: Client, documentId: string, index: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const status = structuredOf<{ state: string }>(await call(client, 'get_document_status', { documentId, index }));
      expect(status.state).toBe('completed');
    },
    { timeout: 15_000, interval: 50 },
  );
}

describe('the MCP endpoint of the service', () => {
  const service = useTestService();

  it('lists the tools and runs each over Streamable HTTP', async () => {
    const client = await connect(service().url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'ask',
        'delete_document',
        'get_document_status',
        'import_text',
        'import_url',
        'list_documents',
        'list_indexes',
        'search',
        'sync_source',
        'update_document_tags',
      ]);

      const imported = structuredOf<{ documentId: string; state: string }>(
        await call(client, 'import_text', {
          text: 'The Rosetta probe landed Philae on comet 67P in November 2014.',
          documentId: 'rosetta',
          index: 'missions',
          tags: { agency: 'esa' },
        }),
      );
      expect(imported.documentId).toBe('rosetta');
      expect(['in_progress', 'completed']).toContain(imported.state);
      await waitUntilReady(client, 'rosetta', 'missions');

      const found = structuredOf<{ results: Array<{ documentId: string; partitions: Array<{ text: string }> }> }>(
        await call(client, 'search', { query: 'Which comet did Philae land on?', index: 'missions', filters: [{ agency: 'esa' }] }),
      );
      expect(found.results[0]?.documentId).toBe('rosetta');
      expect(found.results[0]?.partitions[0]?.text).toContain('comet 67P');
      const filteredOut = structuredOf<{ results: unknown[] }>(
        await call(client, 'search', { query: 'comet', index: 'missions', filters: [{ '!agency': 'esa' }] }),
      );
      expect(filteredOut.results).toEqual([]);

      const answer = structuredOf<{ answer: string; sources: Array<{ documentId: string }> }>(
        await call(client, 'ask', { question: 'Rosetta landed Philae on which comet?', index: 'missions' }),
      );
      expect(answer.answer).toContain('67P');
      expect(answer.sources.map((s) => s.documentId)).toEqual(['rosetta']);

      expect(structuredOf<{ indexes: string[] }>(await call(client, 'list_indexes')).indexes).toContain('missions');

      const blocked = await call(client, 'import_url', { url: 'http://127.0.0.1:1/page.html', index: 'missions' });
      expect(blocked.isError).toBe(true); // the service does not fetch private addresses
      expect(textOf(blocked)).toMatch(/^Invalid argument: /);

      expect(structuredOf(await call(client, 'delete_document', { documentId: 'rosetta', index: 'missions' }))).toMatchObject({
        deleted: true,
      });
      await vi.waitFor(
        async () => expect((await call(client, 'get_document_status', { documentId: 'rosetta', index: 'missions' })).isError).toBe(true),
        { timeout: 15_000, interval: 50 },
      );
    } finally {
      await client.close();
    }
  });

  it('answers bad arguments with tool errors', async () => {
    const client = await connect(service().url);
    try {
      const noQuery = await call(client, 'search', {});
      expect(noQuery.isError).toBe(true);
      expect(textOf(noQuery)).toMatch(/Invalid arguments for tool search/);
      const badIndex = await call(client, 'ask', { question: 'anything?', index: '**' });
      expect(textOf(badIndex)).toMatch(/^Invalid index name: /);
      const unknown = await call(client, 'get_document_status', { documentId: 'nobody', index: 'missions' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^Document not found: /);
      expect((await client.listTools()).tools.length).toBe(10);
    } finally {
      await client.close();
    }
  });

  it("serves browsers only from the service's own origin and KM_ALLOWED_ORIGINS, as every route", async () => {
    const refused = await postInitialize(service().url, 'http://attacker.example:9001');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ detail: expect.stringMatching(/attacker\.example.*KM_ALLOWED_ORIGINS/) });
    expect((await postInitialize(service().url, 'http://localhost:5173')).status).toBe(403);
    const own = await postInitialize(service().url, new URL(service().url).origin);
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'km' } } });
  });

  it('answers GET and DELETE with 405 in stateless mode', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${service().url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
  });
});

describe('the sync_source tool of the MCP endpoint', () => {
  const open = useTestService({ overrides: { web: { allowPrivateNetworks: true } } });
  const guarded = useTestService();
  let site: Server;
  let url: string;
  beforeAll(async () => {
    const pages: Record<string, string> = {
      '/wiki/': '<html><body><a href="/wiki/comets.html">Comets</a></body></html>',
      '/wiki/comets.html': '<html><body><p>Comets have tails of gas and dust.</p></body></html>',
    };
    site = createServer((req, res) => {
      const page = pages[req.url ?? ''];
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/wiki/`;
  });
  afterAll(() => new Promise((resolve) => site?.close(resolve)));

  it('syncs a web site into an index and reports the counts; run again, nothing changes', async () => {
    const client = await connect(open().url);
    try {
      const first = structuredOf<Record<string, unknown>>(await call(client, 'sync_source', { url, index: 'wiki' }));
      expect(first).toMatchObject({ index: 'wiki', listed: 2, added: 2, failed: 0, complete: true });
      const again = structuredOf<Record<string, unknown>>(await call(client, 'sync_source', { url, index: 'wiki' }));
      expect(again).toMatchObject({ added: 0, unchanged: 2, deleted: 0 });
    } finally {
      await client.close();
    }
  });

  it('refuses what is not a web URL, and a private address unless KM_WEB_ALLOW_PRIVATE_NETWORKS allows it', async () => {
    const client = await connect(guarded().url);
    try {
      const file = await call(client, 'sync_source', { url: 'file:///etc/' });
      expect(file.isError).toBe(true);
      expect(textOf(file)).toMatch(/web sites only/);
      const blocked = structuredOf<Record<string, unknown>>(await call(client, 'sync_source', { url }));
      expect(blocked).toMatchObject({ complete: false, added: 0, deleted: 0 });
    } finally {
      await client.close();
    }
  });
});

describe('the MCP endpoint with an allowed origin', () => {
  const service = useTestService({ overrides: { allowedOrigins: ['http://localhost:5173'] } });

  it('serves a browser page of that origin', async () => {
    const local = await postInitialize(service().url, 'http://localhost:5173');
    expect(local.status).toBe(200);
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(await local.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'km' } } });
  });
});

/** An MCP `initialize` as a browser page of `origin` sends it. */
function postInitialize(url: string, origin: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
    }),
  });
}

describe('the MCP endpoint with access keys', () => {
  const service = useTestService({ overrides: { auth: { enabled: true, keys: [KEY] } } });

  it('refuses a client without the key (401) or with a wrong one (403)', async () => {
    await expect(connect(service().url)).rejects.toMatchObject({ code: 401 });
    await expect(connect(service().url, { Authorization: 'x'.repeat(40) })).rejects.toMatchObject({ code: 403 });
    const raw = await fetch(`${service().url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
  });

  it('serves a client that sends the key', async () => {
    const client = await connect(service().url, { Authorization: KEY });
    try {
      expect((await client.listTools()).tools.length).toBe(10);
      expect(structuredOf<{ indexes: string[] }>(await call(client, 'list_indexes')).indexes).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('the MCP endpoint in read-only mode', () => {
  const service = useTestService({ overrides: { mcp: { readOnly: true } } });

  it('lists only the tools that read', async () => {
    const client = await connect(service().url);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'ask',
        'get_document_status',
        'list_documents',
        'list_indexes',
        'search',
      ]);
      expect((await call(client, 'delete_document', { documentId: 'x' })).isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('the MCP endpoint turned off', () => {
  const service = useTestService({ overrides: { mcp: { enabled: false } } });

  it('is not served', async () => {
    const res = await fetch(`${service().url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });
});

describe('MCP settings', () => {
  it('are on and read-write by default, and read KM_MCP and KM_MCP_READ_ONLY', () => {
    expect(DEFAULT_CONFIG.mcp).toEqual({ enabled: true, readOnly: false });
    expect(loadConfig({ env: {} }).mcp).toEqual({ enabled: true, readOnly: false });
    expect(loadConfig({ env: { KM_MCP: 'false', KM_MCP_READ_ONLY: 'true' } }).mcp).toEqual({ enabled: false, readOnly: true });
    expect(loadConfig({ env: { KM_MCP_READ_ONLY: 'yes' } }).mcp).toEqual({ enabled: true, readOnly: true });
  });

  it('refuse a value that is not a boolean', () => {
    expect(() => loadConfig({ env: { KM_MCP_READ_ONLY: 'maybe' } })).toThrow(/KM_MCP_READ_ONLY must be true or false/);
    expect(() => loadConfig({ env: {}, overrides: { mcp: { readOnly: 'yes' as unknown as boolean } } })).toThrow(
      /mcp\.readOnly must be true or false/,
    );
  });
});
