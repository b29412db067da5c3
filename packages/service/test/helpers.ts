import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect, vi } from 'vitest';
import type { KernelMemoryBuilder } from '@km/core';
import { startService, type RunningService, type ServiceConfigInput } from '../src/index.js';

/** A service on a free port over a fresh data folder, with word-hashing embeddings (fast, offline). */
export async function startTestService(
  overrides: ServiceConfigInput = {},
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder,
): Promise<RunningService & { logs: string[]; dispose(): Promise<void> }> {
  const dataDirectory = await mkdtemp(join(tmpdir(), 'km-service-'));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const service = await startService({
    overrides: {
      port: 0,
      dataDirectory,
      logLevel: 'info',
      embeddings: { provider: 'hashing' },
      ...overrides,
      queue: { pollIntervalMs: 20, retryDelayMs: 20, ...overrides.queue },
    },
    logDestination: sink,
    ...(configure ? { configure } : {}),
  });
  return Object.assign(service, {
    logs,
    async dispose() {
      await service.close();
      await rm(dataDirectory, { recursive: true, force: true });
    },
  });
}

/** Waits until the document's status says completed. */
export async function waitForCompletion(url: string, documentId: string, index = '', headers: Record<string, string> = {}) {
  let status: Record<string, unknown> = {};
  await vi.waitFor(
    async () => {
      const res = await fetch(`${url}/upload-status?index=${encodeURIComponent(index)}&documentId=${encodeURIComponent(documentId)}`, {
        headers,
      });
      expect(res.status).toBe(200);
      status = (await res.json()) as Record<string, unknown>;
      expect(status.completed).toBe(true);
    },
    { timeout: 15_000, interval: 30 },
  );
  return status;
}

/** Expects a ProblemDetails response with this status. */
export async function expectProblem(res: Response, status: number, detail?: RegExp): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  if (detail) expect(body.detail).toMatch(detail);
  return body;
}

/** A multipart upload as Kernel Memory's clients send it. */
export function uploadForm(
  fields: Record<string, string | string[]>,
  files: Array<{ name: string; content: string | Uint8Array; type?: string; field?: string }>,
): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(key, v);
  files.forEach((f, i) =>
    form.append(f.field ?? `file${i + 1}`, new Blob([f.content], { type: f.type ?? 'application/octet-stream' }), f.name),
  );
  return form;
}
