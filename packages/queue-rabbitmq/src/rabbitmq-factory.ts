import { type QueueFactory, queueConsumerOptions, settingsAsOptions } from '@km/core/connector';

/** How the service and `km worker` build RabbitMQ queues (`KM_QUEUE=rabbitmq`); amqplib loads only when chosen. */
export const rabbitMqQueueFactory: QueueFactory = {
  type: 'rabbitmq',
  description: 'RabbitMQ, shared by every worker (amqplib)',
  settings: [
    {
      key: 'rabbitmqUrl',
      env: ['KM_RABBITMQ_URL'],
      type: 'url',
      schemes: ['amqp:', 'amqps:'],
      flag: '--rabbitmq-url',
      description: 'AMQP URL',
    },
  ],
  async create(settings, context) {
    const { RabbitMqQueue } = await import('./rabbitmq-queue.js');
    const options = {
      ...queueConsumerOptions(context),
      ...settingsAsOptions(settings, { url: 'rabbitmqUrl' }),
      queuePrefix: context.prefix,
    };
    return () => new RabbitMqQueue(options);
  },
};
