/**
 * Name of the queue that receives a queue's poisoned messages, as Kernel Memory names it: every
 * km queue (file, in-memory, Azure, RabbitMQ) uses it.
 *
 * ```ts
 * poisonQueueName('pipelines') // 'pipelines-poison'
 * ```
 */
export const poisonQueueName = (name: string): string => `${name}-poison`;
