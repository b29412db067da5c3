import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './km-process.js';

/** Azurite's well-known development account (public, documented by Microsoft). */
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/** A queue service for the suites: its connection string, and how to stop it. */
export interface AzureQueueBackend {
  name: string;
  connectionString: string;
  stop: () => Promise<void>;
}

/** A blob service for the suites: its connection string, account and endpoint, and how to stop it. */
export interface AzureBlobBackend {
  name: string;
  connectionString: string;
  /** The account name and key (Azurite's development account), when known. */
  accountName?: string;
  accountKey?: string;
  /** The blob endpoint of the account, e.g. `http://127.0.0.1:PORT/devstoreaccount1`, when known. */
  endpoint?: string;
  stop: () => Promise<void>;
}

/**
 * `KM_TEST_AZURE_QUEUE_CONNECTION_STRING` when set (a real storage account), else Azurite's
 * queue service from npm, started in memory on a free port of 127.0.0.1.
 */
export async function startAzureQueueBackend(): Promise<AzureQueueBackend> {
  const given = process.env.KM_TEST_AZURE_QUEUE_CONNECTION_STRING;
  if (given) return { name: 'Azure Storage (KM_TEST_AZURE_QUEUE_CONNECTION_STRING)', connectionString: given, stop: async () => undefined };
  const { port, stop } = await startAzurite('queue');
  return {
    name: 'Azurite (npm, in memory)',
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};QueueEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`,
    stop,
  };
}

/**
 * `KM_TEST_AZURE_BLOBS_CONNECTION_STRING` when set (a real storage account), else Azurite's
 * blob service from npm, started in memory on a free port of 127.0.0.1.
 */
export async function startAzureBlobBackend(): Promise<AzureBlobBackend> {
  const given = process.env.KM_TEST_AZURE_BLOBS_CONNECTION_STRING;
  if (given) return { name: 'Azure Storage (KM_TEST_AZURE_BLOBS_CONNECTION_STRING)', connectionString: given, stop: async () => undefined };
  const { port, stop } = await startAzurite('blob');
  const endpoint = `http://127.0.0.1:${port}/${DEV_ACCOUNT}`;
  return {
    name: 'Azurite (npm, in memory)',
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};BlobEndpoint=${endpoint};`,
    accountName: DEV_ACCOUNT,
    accountKey: DEV_KEY,
    endpoint,
    stop,
  };
}

/** One Azurite service (`queue` or `blob`) from npm, in memory, on a free port of 127.0.0.1. */
async function startAzurite(service: 'queue' | 'blob'): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const bin = join(dirname(createRequire(import.meta.url).resolve('azurite/package.json')), 'dist', 'src', service, 'main.js');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      bin,
      `--${service}Host`,
      '127.0.0.1',
      `--${service}Port`,
      String(port),
      '--inMemoryPersistence',
      '--extentMemoryLimit',
      '256',
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--loose',
    ],
    // Azurite writes its debug log and extent metadata in the working folder: keep them out of the repo.
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`Azurite did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/successfully listen/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Azurite exited (${code}): ${output}`));
    });
  });
  return {
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
