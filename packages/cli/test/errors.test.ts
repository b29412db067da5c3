import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexNotFoundError, InvalidInputError, KmError } from '@km/core';
import { CliError, EXIT_CODES, exitCodeOf } from '../src/index.js';
import { kmProcess as km } from './helpers.js';

/** One line on stderr, `km: …`, and no stack frame. */
function expectOneLine(stderr: string, pattern: RegExp): void {
  expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(stderr).toMatch(/^km: /);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-errors-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km serve on a busy port', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('names the port and the way out, exits 5 (--port)', async () => {
    const { stderr, code } = await km(['serve', '--port', String(port), '--data-dir', join(dir, 'serve-flag')]);
    expect(code).toBe(EXIT_CODES.cannotListen);
    expect(code).toBe(5);
    expectOneLine(stderr, new RegExp(`^km: port ${port} is in use: choose another with --port or KM_PORT\\n$`));
  });

  it('names the port also when it comes from KM_PORT', async () => {
    const env = { ...process.env, KM_EMBEDDINGS: 'hashing', KM_LOG_LEVEL: 'error', KM_URL: '', KM_API_KEY: '', KM_PORT: String(port) };
    const { stderr, code } = await km(['serve', '--data-dir', join(dir, 'serve-env')], env);
    expect(code).toBe(5);
    expectOneLine(stderr, new RegExp(`^km: port ${port} is in use`));
  });
});

describe('km usage errors exit 2 with one line naming the help', () => {
  it.each([
    [['search', 'x', '--bogus'], /^km: unknown option '--bogus' \(see km search --help\)\n$/],
    [['ask'], /^km: missing required argument 'question' \(see km ask --help\)\n$/],
    [
      ['serve', '--port', 'abc'],
      /^km: option '-p, --port <port>' argument 'abc' is invalid\. it must be a whole number from 0 to 65535 \(see km serve --help\)\n$/,
    ],
    [['frobnicate'], /^km: unknown command 'frobnicate' \(see km --help\)\n$/],
  ])('km %j', async (args, pattern) => {
    const { stderr, stdout, code } = await km(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expectOneLine(stderr, pattern);
  });
});

describe('km errors from the work', () => {
  it('a missing document exits 3 (not found)', async () => {
    const { stderr, code } = await km(['status', 'nobody', '--data-dir', join(dir, 'local')]);
    expect(code).toBe(3);
    expectOneLine(stderr, /document "nobody" not found/);
  });

  it('a service that does not answer exits 4 (unreachable)', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { stderr, code } = await km(['indexes', '--url', `http://127.0.0.1:${port}`]);
    expect(code).toBe(4);
    expectOneLine(stderr, new RegExp(`cannot reach the service at http://127\\.0\\.0\\.1:${port}`));
  });
});

describe('exit codes of errors', () => {
  it.each([
    [new InvalidInputError('invalid_tag', 'bad tag'), 2],
    [new KmError('unsupported_content', 'no decoder'), 2],
    [new IndexNotFoundError('notes'), 3],
    [new KmError('document_not_found', 'gone'), 3],
    [new KmError('unauthorized', 'refused'), 4],
    [new KmError('transient', 'cannot reach'), 4],
    [new KmError('upstream_error', 'model failed'), 1],
    [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 4],
    [Object.assign(new Error('no such file'), { code: 'ENOENT' }), 3],
    [new CliError('port busy', EXIT_CODES.cannotListen), 5],
    [new TypeError('x is undefined'), 1],
  ])('%s → %i', (error, code) => expect(exitCodeOf(error)).toBe(code));
});
