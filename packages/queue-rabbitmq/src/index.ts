export { RabbitMqQueue } from './rabbitmq-queue.js';
export { amqpUrl, type RabbitMqQueueOptions } from './rabbitmq-config.js';
export { QueueNames, ATTEMPTS_HEADER, retryDelay, queueArguments, deliveryAttempt, checkQueueName } from './rabbitmq-topology.js';
export { RabbitMqTransport, type RabbitMqDelivery } from './rabbitmq-transport.js';
export { translateAmqpError } from './rabbitmq-errors.js';
export { rabbitMqQueueFactory } from './rabbitmq-factory.js';
