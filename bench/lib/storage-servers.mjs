// Storage servers for the content-storage bench: Azurite's blob service and s3rver, both from
// npm, each in its own process on a free port of 127.0.0.1 (their memory is not the client's).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port.mjs';

const require = createRequire(import.meta.url);
/** Azurite's public development account. */
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

function started(child, pattern, name) {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk;
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}): ${output}`)));
  });
}

const stopper =
  (child, cleanup = async () => undefined) =>
  async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await cleanup();
  };

/** Azurite's blob service on disk (a temp folder), and the connection string of its account. */
export async function startAzuriteBlobs() {
  const port = await freePort();
  const folder = await mkdtemp(join(tmpdir(), 'km-bench-azurite-'));
  const bin = join(dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'blob', 'main.js');
  const child = spawn(
    process.execPath,
    [
      bin,
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      String(port),
      '--location',
      folder,
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--loose',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: folder },
  );
  await started(child, /successfully listen/i, 'Azurite');
  return {
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};BlobEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`,
    stop: stopper(child, () => rm(folder, { recursive: true, force: true })),
  };
}

/** s3rver on disk (a temp folder); it checks the access key id only. */
export async function startS3rver() {
  const port = await freePort();
  const folder = await mkdtemp(join(tmpdir(), 'km-bench-s3rver-'));
  const dir = dirname(require.resolve('s3rver/package.json'));
  const launcher = `const S3rver = require(${JSON.stringify(dir)});
new S3rver({ directory: ${JSON.stringify(folder)}, address: '127.0.0.1', port: ${port}, silent: true })
  .run().then(() => console.log('S3rver listening')).catch((e) => { console.error(e); process.exit(1); });`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', launcher], { stdio: ['ignore', 'pipe', 'pipe'], cwd: folder });
  await started(child, /S3rver listening/, 's3rver');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    stop: stopper(child, () => rm(folder, { recursive: true, force: true })),
  };
}
