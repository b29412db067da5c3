import { KmError } from '@km/core';

const CONNECTOR = 'rabbitmq';

interface AmqpErrorShape {
  code?: unknown;
  message?: unknown;
  name?: unknown;
}

/**
 * amqplib errors → km errors. Network trouble and broker shutdowns are transient; refused
 * credentials are `unauthorized`; a queue declared elsewhere with other arguments (406
 * PRECONDITION_FAILED) or a missing queue (404) are `upstream_error`, not retried blindly.
 */
export function translateAmqpError(error: unknown, queue: string): KmError {
  if (error instanceof KmError) return error;
  const shape = (error ?? {}) as AmqpErrorShape;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const code = shape.code;
  const what = queue ? `RabbitMQ (queue "${queue}")` : 'RabbitMQ';
  if (code === 403 || /ACCESS_REFUSED|ACCESS-REFUSED|403/.test(message)) {
    return new KmError('unauthorized', `${what} refused the credentials: ${message}`, { connector: CONNECTOR, cause: error });
  }
  if (code === 406 || /PRECONDITION_FAILED/.test(message)) {
    return new KmError('upstream_error', `${what}: ${message} (a queue of this name exists with other arguments?)`, {
      connector: CONNECTOR,
      cause: error,
    });
  }
  if (code === 404 || /NOT_FOUND/.test(message)) {
    return new KmError('upstream_error', `${what}: ${message}`, { connector: CONNECTOR, cause: error });
  }
  return new KmError('transient', `${what}: ${message}`, { connector: CONNECTOR, cause: error, transient: true });
}
