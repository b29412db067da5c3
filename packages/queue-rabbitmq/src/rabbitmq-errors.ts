import { KmError } from '@km/core';

/**
 * amqplib errors → km errors. Network trouble and broker shutdowns are transient; refused
 * credentials are `unauthorized`; a queue declared elsewhere with other arguments (406
 * PRECONDITION_FAILED) or a missing queue (404) are `upstream_error`, not retried blindly.
 */
export function translateAmqpError(error: unknown, queue: string): KmError {
  if (error instanceof KmError) return error;
  const { code, message: raw } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof raw === 'string' ? raw : String(error);
  const [message, options] = [`RabbitMQ${queue ? ` (queue "${queue}")` : ''}: ${text}`, { connector: 'rabbitmq', cause: error }];
  // A socket error (ECONNREFUSED, ECONNRESET, ...) is the network, whatever digits its message holds (a port like 44039).
  if (typeof code === 'string') return new KmError('transient', message, { ...options, transient: true });
  if (code === 403 || /ACCESS[_-]REFUSED/.test(text)) return new KmError('unauthorized', `${message} (credentials refused)`, options);
  if (code === 406 || /PRECONDITION_FAILED/.test(text))
    return new KmError('upstream_error', `${message} (a queue of this name exists with other arguments?)`, options);
  if (code === 404 || /NOT_FOUND/.test(text)) return new KmError('upstream_error', message, options);
  return new KmError('transient', message, { ...options, transient: true });
}
