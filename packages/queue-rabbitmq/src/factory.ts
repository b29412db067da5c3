// @km/queue-rabbitmq/factory: how hosts build this connector from configuration; loads no SDK until used.
export { rabbitMqQueueFactory } from './rabbitmq-factory.js';
