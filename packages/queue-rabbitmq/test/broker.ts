import amqp from 'amqplib';

/** The broker the tests use: KM_TEST_RABBITMQ_URL, else the local RabbitMQ on 127.0.0.1:5672. */
export const RABBITMQ_URL = process.env.KM_TEST_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Undefined when the broker answers, else the one-line reason the suite is skipped. */
export async function brokerUnavailable(): Promise<string | undefined> {
  try {
    const connection = await amqp.connect(RABBITMQ_URL, { timeout: 3000 });
    await connection.close();
    return undefined;
  } catch (error) {
    return `no RabbitMQ at ${RABBITMQ_URL.replace(/\/\/[^@]*@/, '//')} (${(error as Error).message}); start one with \`rabbitmq-server -detached\` or set KM_TEST_RABBITMQ_URL`;
  }
}
