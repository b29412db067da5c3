import { describe, expect, it } from 'vitest';
import { expectProblem, uploadForm, useTestService, waitForCompletion } from './helpers.js';

const TEXTS: Record<string, [string, string[]]> = {
  'doc-a': ['The Moon orbits the Earth at about 384,400 km.', ['topic:space', 'team:astro']],
  'doc-b': ['Green tea is made from leaves that are not oxidised.', ['topic:food']],
  'doc-c': ['Mars is red because of iron oxide on its surface.', ['topic:space']],
};

interface Listed {
  index: string;
  documents: Array<{ documentId: string; state: string; tags: Record<string, string[]>; files: Array<{ name: string; size: number }> }>;
  nextCursor: string | null;
}

describe('GET /documents, GET /documents/files and PUT /documents/tags', () => {
  const service = useTestService();
  const index = 'listing';

  async function list(query: string): Promise<Listed> {
    const res = await fetch(`${service().url}/documents?index=${index}&${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Listed;
  }

  it('lists the documents of an index a page at a time, with state, tags and files', async () => {
    const { url } = service();
    for (const [documentId, [text, tags]] of Object.entries(TEXTS)) {
      const res = await fetch(`${url}/upload`, {
        method: 'POST',
        body: uploadForm({ index, documentId, tags }, [{ name: `${documentId}.txt`, content: text, type: 'text/plain' }]),
      });
      expect(res.status).toBe(202);
      await waitForCompletion(url, documentId, index);
    }
    const first = await list('limit=2');
    expect(first.index).toBe(index);
    expect(first.documents.map((d) => d.documentId)).toEqual(['doc-a', 'doc-b']);
    expect(first.documents[0]).toMatchObject({
      state: 'completed',
      tags: { topic: ['space'], team: ['astro'] },
      files: [{ name: 'doc-a.txt', size: Buffer.byteLength(TEXTS['doc-a']![0]) }],
    });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list(`limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.documents.map((d) => d.documentId)).toEqual(['doc-c']);
    expect(second.nextCursor).toBeNull();
    // A page that ends exactly at the last document says there is no next one.
    expect((await list('limit=3')).nextCursor).toBeNull();
  });

  it('filters by tag (KM syntax, AND), by KM filter JSON (OR) and by state', async () => {
    expect((await list('tag=topic:space')).documents.map((d) => d.documentId)).toEqual(['doc-a', 'doc-c']);
    expect((await list('tag=topic:space&tag=team:astro')).documents.map((d) => d.documentId)).toEqual(['doc-a']);
    const json = encodeURIComponent(JSON.stringify([{ topic: ['food'] }, { team: ['astro'] }]));
    expect((await list(`filters=${json}`)).documents.map((d) => d.documentId)).toEqual(['doc-a', 'doc-b']);
    expect((await list('state=completed')).documents).toHaveLength(3);
    expect((await list('state=failed,in_progress')).documents).toEqual([]);
  });

  it("lists a document's uploaded and generated files", async () => {
    const res = await fetch(`${service().url}/documents/files?index=${index}&documentId=doc-a`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { files: Array<{ name: string; artifactType: string; parent?: string }> };
    expect(body.files[0]).toMatchObject({ name: 'doc-a.txt', artifactType: 'uploaded_file' });
    expect(body.files.some((f) => f.artifactType === 'text_partition' && f.parent === 'doc-a.txt')).toBe(true);
    await expectProblem(await fetch(`${service().url}/documents/files?index=${index}&documentId=nope`), 404, /not found/);
  });

  it('changes tags without ingesting again: the state and the records follow, search filters by the new tag', async () => {
    const { url } = service();
    const put = await fetch(`${url}/documents/tags?index=${index}&documentId=doc-b`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tags: { topic: ['drinks'], reviewed: [null] } }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ documentId: 'doc-b', state: 'completed', tags: { topic: ['drinks'], reviewed: [null] } });
    expect((await list('tag=topic:drinks')).documents.map((d) => d.documentId)).toEqual(['doc-b']);
    expect((await list('tag=topic:food')).documents).toEqual([]);

    const search = async (filter: Record<string, string[]>) => {
      const res = await fetch(`${url}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ index, query: 'green tea leaves', filters: [filter] }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { results: Array<{ documentId: string; partitions: Array<{ tags: Record<string, string[]> }> }> };
    };
    const found = await search({ topic: ['drinks'] });
    expect(found.results.map((r) => r.documentId)).toEqual(['doc-b']);
    // The reserved tags stay with the record.
    expect(found.results[0]!.partitions[0]!.tags).toMatchObject({ topic: ['drinks'], __document_id: ['doc-b'] });
    expect(found.results[0]!.partitions[0]!.tags.topic).toEqual(['drinks']);
    expect((await search({ topic: ['food'] })).results).toEqual([]);
  });

  it('refuses bad input with a ProblemDetails naming it', async () => {
    const { url } = service();
    await expectProblem(await fetch(`${url}/documents?index=${index}&limit=0`), 400, /limit/);
    await expectProblem(await fetch(`${url}/documents?index=${index}&limit=abc`), 400, /limit/);
    await expectProblem(await fetch(`${url}/documents?index=${index}&cursor=not-a-cursor`), 400, /cursor/);
    await expectProblem(await fetch(`${url}/documents?index=${index}&state=done`), 400, /state/);
    await expectProblem(await fetch(`${url}/documents?index=${index}&filters=%7Bnope`), 400, /filters/);
    await expectProblem(await fetch(`${url}/documents?index=${index}&tag=__document_id:x`), 400, /reserved/);
    await expectProblem(await fetch(`${url}/documents?index=bad%2Fname%00`), 400);
    const put = (body: unknown, documentId = 'doc-a') =>
      fetch(`${url}/documents/tags?index=${index}&documentId=${documentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await expectProblem(await put({ tags: { __document_id: ['x'] } }), 400, /reserved/);
    await expectProblem(await put({ tags: ['x'] }), 400);
    await expectProblem(await put({ labels: {} }), 400, /tags/);
    await expectProblem(await put({ tags: {} }, 'missing-doc'), 404, /not found/);
    await expectProblem(await put({ tags: {} }, '../etc'), 400);
    // Nothing changed on doc-a.
    expect((await list('tag=team:astro')).documents.map((d) => d.documentId)).toEqual(['doc-a']);
  });

  it('the routes are in the OpenAPI document, and every schema they name exists', async () => {
    const doc = (await (await fetch(`${service().url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths['/documents']!)).toEqual(expect.arrayContaining(['get', 'delete']));
    expect(doc.paths['/documents/files']).toHaveProperty('get');
    expect(doc.paths['/documents/tags']).toHaveProperty('put');
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toEqual(
      expect.arrayContaining(['DocumentList', 'DocumentSummary', 'DocumentFiles', 'DocumentTagsUpdate', 'DocumentState']),
    );
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty([ref]);
  });

  it('an index without documents lists nothing', async () => {
    const res = await fetch(`${service().url}/documents?index=nothing-here`);
    expect(await res.json()).toEqual({ index: 'nothing-here', documents: [], nextCursor: null });
  });
});

describe('document routes with access keys', () => {
  const key = 'k'.repeat(40);
  const service = useTestService({ overrides: { auth: { enabled: true, keys: [key] } } });

  it('need the key like every other route', async () => {
    const { url } = service();
    await expectProblem(await fetch(`${url}/documents`), 401);
    await expectProblem(await fetch(`${url}/documents/files?documentId=a`), 401);
    await expectProblem(await fetch(`${url}/documents/tags?documentId=a`, { method: 'PUT', body: '{}' }), 401);
    const wrong = await expectProblem(await fetch(`${url}/documents`, { headers: { authorization: 'Bearer nope' } }), 403);
    expect(wrong.detail).toMatch(/as is.*Bearer <key>/);
    expect((await fetch(`${url}/documents`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${url}/documents`, { headers: { authorization: key } })).status).toBe(200);
  });
});

describe('access keys read from another header', () => {
  const key = 'h'.repeat(40);
  const service = useTestService({ overrides: { auth: { enabled: true, header: 'X-Api-Key', keys: [key] } } });

  it('a key sent in Authorization is refused with a message naming the header the service reads', async () => {
    const { url } = service();
    await expectProblem(
      await fetch(`${url}/documents`, { headers: { authorization: `Bearer ${key}` } }),
      401,
      /reads the key from X-Api-Key, not from Authorization/,
    );
    await expectProblem(await fetch(`${url}/documents`), 401, /^the X-Api-Key header with an access key is required$/);
    expect((await fetch(`${url}/documents`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });
});

describe('favicon', () => {
  const service = useTestService();

  it('/favicon.ico leads to the console icon instead of a 404', async () => {
    const { url } = service();
    const redirect = await fetch(`${url}/favicon.ico`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('ui/favicon.svg');
    const icon = await fetch(`${url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
  });
});
