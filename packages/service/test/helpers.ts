import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { KernelMemoryBuilder } from '@km/core';
import type { ServiceConfigInput } from '../src/index.js';
import { startTestService, type TestService } from '../src/testing.js';

export { startTestService, type TestService };

/** What {@link useTestService} starts. */
export interface TestServiceOptions {
  overrides?: ServiceConfigInput;
  configure?: (builder: KernelMemoryBuilder) => KernelMemoryBuilder;
  /** Time allowed to close the service after the tests, in ms (closing may wait for kept-alive client sockets). @default vitest's hook timeout */
  disposeTimeoutMs?: number;
}

/**
 * Starts a test service (see `startTestService`) before the tests of the enclosing `describe`
 * (or file) and disposes of it after them; the returned function gives the running service.
 */
export function useTestService(options: TestServiceOptions = {}): () => TestService {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService(options.overrides, options.configure);
  });
  afterAll(() => service?.dispose(), options.disposeTimeoutMs);
  return () => {
    if (!service) throw new Error('the test service is not started yet (use it inside a test or a later hook)');
    return service;
  };
}

/** Uploads each text as a document of one `.txt` file to `index`, and waits until it is ready. */
export async function importTexts(url: string, index: string, texts: Record<string, string>): Promise<void> {
  for (const [documentId, text] of Object.entries(texts)) {
    const res = await fetch(`${url}/upload`, {
      method: 'POST',
      body: uploadForm({ index, documentId }, [{ name: `${documentId}.txt`, content: text, type: 'text/plain' }]),
    });
    expect(res.status).toBe(202);
    await waitForCompletion(url, documentId, index);
  }
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
