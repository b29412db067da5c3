import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestService } from '@km/service/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const KEY = 'cli-mcp-test-key-'.padEnd(40, 'k');

/** Runs the built `km mcp` with these arguments and connects the SDK's stdio client to it. */
async function kmMcp(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'km-cli-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function structuredOf<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** Imports a text through MCP and waits, through MCP, until it is ready. */
async function importAndWait(client: Client, text: string, documentId: string, index: string): Promise<void> {
  structuredOf(await call(client, 'import_text', { text, documentId, index }));
  await vi.waitFor(
    async () => {
      const status = structuredOf<{ state: string }>(await call(client, 'get_document_status', { documentId, index }));
      expect(status.state).toBe('completed');
    },
    { timeout: 15_000, interval: 50 },
  );
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-mcp-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km mcp on a data folder', () => {
  it('serves every tool over stdio; what it imports, search finds', async () => {
    const { client } = await kmMcp(['--data-dir', join(dir, 'data')]);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(9);
      await importAndWait(client, 'The Voyager 1 probe left the heliosphere in August 2012.', 'voyager', 'probes');
      const found = structuredOf<{ results: Array<{ documentId: string }> }>(
        await call(client, 'search', { query: 'When did Voyager leave the heliosphere?', index: 'probes' }),
      );
      expect(found.results[0]?.documentId).toBe('voyager');
      const bad = await call(client, 'search', { query: 'x', index: '***' });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('offers only the read tools with --read-only, over the same data', async () => {
    const { client } = await kmMcp(['--data-dir', join(dir, 'data'), '--read-only', '--index', 'probes']);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        'ask',
        'get_document_status',
        'list_documents',
        'list_indexes',
        'search',
      ]);
      const found = structuredOf<{ results: Array<{ documentId: string }> }>(
        await call(client, 'search', { query: 'Voyager heliosphere' }),
      );
      expect(found.results[0]?.documentId).toBe('voyager');
    } finally {
      await client.close();
    }
  });
});

describe('km mcp against a service URL', () => {
  it('works through the service with its access key', async () => {
    const service = await startTestService({ logLevel: 'silent', auth: { enabled: true, keys: [KEY] } });
    try {
      const { client } = await kmMcp(['--url', service.url, '--key', KEY]);
      try {
        await importAndWait(client, 'Cassini ended its mission in 2017 with a dive into Saturn.', 'cassini', 'probes');
        const answer = structuredOf<{ answer: string; sources: Array<{ documentId: string }> }>(
          await call(client, 'ask', { question: 'What ended the Cassini mission in 2017?', index: 'probes' }),
        );
        expect(answer.answer).toContain('Saturn');
        expect(answer.sources.map((s) => s.documentId)).toEqual(['cassini']);
      } finally {
        await client.close();
      }
    } finally {
      await service.dispose();
    }
  });
});
