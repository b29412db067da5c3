export { RabbitMqQueue } from './rabbitmq-queue.js';
export type { RabbitMqQueueOptions } from './rabbitmq-config.js';
export { QueueNames, ATTEMPTS_HEADER, retryDelay, queueArguments, deliveryAttempt } from './rabbitmq-topology.js';
export { translateAmqpError } from './rabbitmq-errors.js';
