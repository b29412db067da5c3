import amqp from 'amqplib';

/** The broker of the suites: KM_TEST_RABBITMQ_URL, else the local RabbitMQ (`.ci/run` starts it). */
export const RABBITMQ_URL = process.env.KM_TEST_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Undefined when the broker answers, else the one-line reason to skip. */
export async function rabbitMqUnavailable(): Promise<string | undefined> {
  try {
    const connection = await amqp.connect(RABBITMQ_URL, { timeout: 3000 });
    await connection.close();
    return undefined;
  } catch (error) {
    return `no RabbitMQ at ${RABBITMQ_URL.replace(/\/\/[^@]*@/, '//')} (${(error as Error).message}); start one with \`rabbitmq-server -detached\` or set KM_TEST_RABBITMQ_URL`;
  }
}

/** Deletes queues a test declared (with their poison and delay companions), best effort. */
export async function deleteQueues(names: Iterable<string>): Promise<void> {
  const connection = await amqp.connect(RABBITMQ_URL);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    for (const name of names) await channel.deleteQueue(name).catch(() => undefined);
  } finally {
    await connection.close().catch(() => undefined);
  }
}
