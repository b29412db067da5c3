import { describe, expect, it } from 'vitest';
import { expectProblem, uploadForm, useTestService } from './helpers.js';
import { sendRaw } from './raw-http.js';

const KEY = 'k'.repeat(40);

/** A text upload as a browser page would post it, with these extra headers. */
const upload = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/upload`, {
    method: 'POST',
    headers,
    body: uploadForm({ index: 'web', documentId: `d${Math.random().toString(36).slice(2)}` }, [
      { name: 'a.txt', content: 'hello', type: 'text/plain' },
    ]),
  });

describe('Host and Origin checks with the defaults (no access key)', () => {
  const service = useTestService();
  const port = () => new URL(service().url).port;

  it('refuses a state-changing request from a foreign web page, naming KM_ALLOWED_ORIGINS', async () => {
    await expectProblem(await upload(service().url, { origin: 'http://evil.example' }), 403, /evil\.example.*KM_ALLOWED_ORIGINS/);
    await expectProblem(await upload(service().url, { origin: 'null' }), 403, /KM_ALLOWED_ORIGINS/);
    const del = await fetch(`${service().url}/indexes?index=web`, { method: 'DELETE', headers: { origin: 'http://evil.example' } });
    await expectProblem(del, 403, /KM_ALLOWED_ORIGINS/);
    const search = await fetch(`${service().url}/search`, {
      method: 'POST',
      headers: { origin: 'http://localhost:3000', 'content-type': 'application/json' },
      body: JSON.stringify({ index: 'web', query: 'hello' }),
    });
    await expectProblem(search, 403, /localhost:3000/);
  });

  it('serves requests without Origin and from its own origin (the web console)', async () => {
    expect((await upload(service().url)).status).toBe(202);
    expect((await upload(service().url, { origin: new URL(service().url).origin })).status).toBe(202);
    expect((await upload(service().url, { origin: `http://localhost:${port()}` })).status).toBe(403); // another name: another origin
  });

  it('refuses a foreign Host (DNS rebinding) on every route, naming KM_ALLOWED_HOSTS', async () => {
    for (const path of ['/search', '/download?index=web&documentId=x&filename=a.txt', '/health', '/ui/', '/upload-status?documentId=x']) {
      const method = path === '/search' ? 'POST' : 'GET';
      const res = await sendRaw(
        service().url,
        method,
        path,
        { host: `evil.example:${port()}`, 'content-type': 'application/json' },
        method === 'POST' ? '{"query":"x"}' : '',
      );
      expect(res.status, path).toBe(403);
      expect(JSON.parse(res.body), path).toMatchObject({
        code: 'forbidden',
        detail: expect.stringMatching(/evil\.example.*KM_ALLOWED_HOSTS/),
      });
    }
    const malformed = await sendRaw(service().url, 'GET', '/health', { host: 'evil.example@localhost' });
    expect(malformed.status).toBe(403);
  });

  it('serves loopback names, *.localhost and IP addresses', async () => {
    for (const host of [
      'localhost',
      `localhost:${port()}`,
      `app.localhost:${port()}`,
      `127.0.0.1:${port()}`,
      `[::1]:${port()}`,
      `10.1.2.3:${port()}`,
      'LOCALHOST.',
    ]) {
      expect((await sendRaw(service().url, 'GET', '/health', { host })).status, host).toBe(200);
    }
  });

  it('refuses a cross-site read by a page (Sec-Fetch-Site), not a link the user follows', async () => {
    const path = '/upload-status?index=web&documentId=none';
    const read = await fetch(`${service().url}${path}`, { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } });
    await expectProblem(read, 403, /KM_ALLOWED_ORIGINS/);
    // fetch sends its own Sec-Fetch-Mode (cors): the navigation is written by hand.
    const link = await sendRaw(service().url, 'GET', path, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' });
    expect(link.status).toBe(404);
    const console = await fetch(`${service().url}/ui/settings.json`, {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
    });
    expect(console.status).toBe(200);
  });

  it('answers no preflight for an origin not allowed', async () => {
    const res = await fetch(`${service().url}/upload`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    await expectProblem(res, 403, /KM_ALLOWED_ORIGINS/);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('Host and Origin checks with allowed hosts and origins', () => {
  const service = useTestService({ overrides: { allowedHosts: ['km.example.com'], allowedOrigins: ['https://app.example.com'] } });

  it('serves a configured host name', async () => {
    expect((await sendRaw(service().url, 'GET', '/health', { host: 'km.example.com:9001' })).status).toBe(200);
    expect((await sendRaw(service().url, 'GET', '/health', { host: 'other.example.com' })).status).toBe(403);
  });

  it('answers the preflight of an allowed origin and adds CORS headers to its requests', async () => {
    const preflight = await fetch(`${service().url}/upload`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization');
    const res = await upload(service().url, { origin: 'https://app.example.com' });
    expect(res.status).toBe(202);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-expose-headers')).toContain('location');
    expect((await upload(service().url, { origin: 'https://evil.example.com' })).status).toBe(403);
  });
});

describe('Host and Origin checks with access keys', () => {
  const service = useTestService({ overrides: { auth: { enabled: true, keys: [KEY] } } });

  it('apply whether or not the key is right', async () => {
    await expectProblem(await upload(service().url, { origin: 'http://evil.example', authorization: KEY }), 403, /KM_ALLOWED_ORIGINS/);
    const rebound = await sendRaw(service().url, 'GET', '/indexes', { host: 'evil.example', authorization: KEY });
    expect(rebound.status).toBe(403);
    expect((await upload(service().url, { authorization: KEY })).status).toBe(202);
  });

  it('accept the key as KM sends it and as a bearer token', async () => {
    expect((await fetch(`${service().url}/indexes`, { headers: { authorization: KEY } })).status).toBe(200);
    expect((await fetch(`${service().url}/indexes`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await fetch(`${service().url}/indexes`, { headers: { authorization: `bearer  ${KEY}` } })).status).toBe(200);
    await expectProblem(await fetch(`${service().url}/indexes`, { headers: { authorization: `Bearer ${'x'.repeat(40)}` } }), 403);
    await expectProblem(await fetch(`${service().url}/indexes`, { headers: { authorization: 'Bearer' } }), 403);
  });
});
