import { execFile, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from './km-process.js';

const run = promisify(execFile);

/** A RabbitMQ node of one test's own, which the test may stop and start without touching the shared broker. */
export interface PrivateRabbitMqNode {
  /** AMQP URL of the node (guest/guest on 127.0.0.1). */
  readonly url: string;
  /** Stops the node (`rabbitmqctl stop`: connections close, the Erlang VM exits); its data stays. */
  halt(): Promise<void>;
  /** Starts the node again on the data it had. */
  start(): Promise<void>;
  /** Stops the node and deletes its data. */
  dispose(): Promise<void>;
}

/**
 * Starts a second RabbitMQ node from Debian's `rabbitmq-server`, on free ports and a data folder
 * of its own: a test can then restart a broker while other suites keep using the shared one.
 * Gives the one-line reason when that is not possible here.
 */
export async function startPrivateRabbitMqNode(): Promise<PrivateRabbitMqNode | string> {
  if (spawnSync('sh', ['-c', 'command -v rabbitmq-server && command -v rabbitmqctl']).status !== 0) {
    return "needs Debian's rabbitmq-server and rabbitmqctl (apt-get install rabbitmq-server) to run a broker of its own";
  }
  const [amqpPort, distPort] = [await freePort(), await freePort()];
  const nodeName = `km-test-${process.pid}-${amqpPort}@localhost`;
  const dir = await mkdtemp(join(tmpdir(), 'km-rabbitmq-'));
  await writeFile(join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${amqpPort}\n`);
  // Debian's wrapper runs the server as the rabbitmq user when started by root.
  const owner = rabbitMqUser();
  if (process.getuid?.() === 0 && owner)
    await chown(dir, owner.uid, owner.gid).then(() => chown(join(dir, 'rabbitmq.conf'), owner.uid, owner.gid));
  const env = {
    ...process.env,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: join(dir, 'pid'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
  };
  const start = async () => {
    await run('rabbitmq-server', ['-detached'], { env, cwd: dir });
    if (!(await portOpens(amqpPort, 60_000)))
      throw new Error(`RabbitMQ node ${nodeName} did not open port ${amqpPort}; see ${join(dir, 'log')}`);
    await run('rabbitmqctl', ['-n', nodeName, 'await_startup'], { env, timeout: 60_000 });
  };
  const halt = () => run('rabbitmqctl', ['-n', nodeName, 'stop'], { env, timeout: 60_000 }).then(() => undefined);
  try {
    await start();
  } catch (error) {
    await halt().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    return `could not start a RabbitMQ node of its own (${(error as Error).message.split('\n')[0]})`;
  }
  return {
    url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    halt,
    start,
    async dispose() {
      await halt().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function rabbitMqUser(): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', 'rabbitmq'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'rabbitmq'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

async function portOpens(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await sleep(250);
  }
  return false;
}
