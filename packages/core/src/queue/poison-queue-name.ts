/** Name of the queue that receives a queue's poisoned messages (km's own queues: file and in-memory). */
export const poisonQueueName = (name: string): string => `${name}-poison`;
