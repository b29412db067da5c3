import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './km-process.js';

/** s3rver's fixed credentials (it checks the access key id, not V4 signatures). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/** A running s3rver: its endpoint, and how to stop it (its folder is removed). */
export interface S3Server {
  name: string;
  endpoint: string;
  stop: () => Promise<void>;
}

// Runs in the child. Two s3rver 3.7.1 bugs are worked around so it answers like S3 where km relies
// on it (both are in s3rver, not in the storage under test):
// - listObjects with a delimiter prunes folders two levels below the prefix before seeing their
//   objects, so `a/b/c` under prefix '' never yields the common prefix `a/`: listed here without
//   the delimiter, then rolled up as S3 does;
// - continuation tokens are DES-encrypted, which OpenSSL 3 offers only with --openssl-legacy-provider.
const LAUNCHER = `
const [s3rverDir, directory, port] = process.argv.slice(1);
const S3rver = require(s3rverDir);
const FilesystemStore = require(s3rverDir + '/lib/stores/filesystem.js');
const listObjects = FilesystemStore.prototype.listObjects;
FilesystemStore.prototype.listObjects = async function (bucket, options) {
  const { delimiter = '', prefix = '', maxKeys = Infinity } = options;
  if (!delimiter) return listObjects.call(this, bucket, options);
  const all = await listObjects.call(this, bucket, { ...options, delimiter: undefined, maxKeys: Infinity });
  const objects = [];
  const commonPrefixes = new Set();
  let isTruncated = false;
  for (const object of all.objects) {
    const rest = object.key.slice(prefix.length);
    const at = rest.indexOf(delimiter);
    if (at !== -1) commonPrefixes.add(prefix + rest.slice(0, at + delimiter.length));
    else if (objects.length < maxKeys) objects.push(object);
    else { isTruncated = true; break; }
  }
  return { objects, commonPrefixes: [...commonPrefixes].sort(), isTruncated };
};
new S3rver({ directory, address: '127.0.0.1', port: Number(port), silent: true, vhostBuckets: false })
  .run()
  .then((address) => console.log('S3rver listening on ' + address.port))
  .catch((error) => { console.error(error); process.exit(1); });
`;

/**
 * Starts s3rver 3.7.1 from npm in a child process on a free port of 127.0.0.1, storing its objects
 * in a new temporary folder. It speaks enough S3 for the storage suite (objects, ranges,
 * ListObjectsV2, DeleteObjects, multipart uploads) but ignores `If-Match`/`If-None-Match` on
 * PutObject (conditional writes must stay off against it) and has no AbortMultipartUpload.
 */
export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'km-s3rver-'));
  const port = await freePort();
  const s3rverDir = dirname(createRequire(import.meta.url).resolve('s3rver/package.json'));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', LAUNCHER, s3rverDir, directory, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: directory,
  });
  let output = '';
  const onData = (chunk: Buffer) => {
    if (output.length < 8000) output += chunk.toString();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s: ${output}`)), 20_000);
      child.stdout!.on('data', () => {
        if (/S3rver listening/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited (${code}): ${output}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    name: 's3rver 3.7.1 (npm)',
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
