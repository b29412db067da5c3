import { TransportQueue } from '@km/core/connector';
import type { RabbitMqQueueOptions } from './rabbitmq-config.js';
import { type RabbitMqDelivery, RabbitMqTransport } from './rabbitmq-transport.js';

/**
 * A km pipeline queue on RabbitMQ: core's consumer engine over {@link RabbitMqTransport} (quorum
 * queues, publisher confirms, a prefetch of `concurrency`, delay tiers, dead-lettering, reconnects).
 *
 * ```ts
 * const queue = new RabbitMqQueue({ url: 'amqp://guest:guest@127.0.0.1:5672', concurrency: 4 });
 * queue.onDequeue(async (message) => (await handle(message), 'ok'));
 * await queue.connect('extract', { dequeue: true });
 * ```
 */
export class RabbitMqQueue extends TransportQueue<RabbitMqDelivery> {
  constructor(options: RabbitMqQueueOptions = {}) {
    super(new RabbitMqTransport(options), options);
  }
}
