import { type QueueFactory, queueConsumerOptions, settingsAsOptions } from '@km/core/connector';

/** How the service and `km worker` build Azure Storage queues (`KM_QUEUE=azure`); the SDK loads only when chosen. */
export const azureQueueFactory: QueueFactory = {
  type: 'azure',
  description: 'Azure Storage Queues, shared by every worker (@azure/storage-queue)',
  settings: [
    {
      key: 'azureConnectionString',
      env: ['KM_AZURE_QUEUE_CONNECTION_STRING', 'AZURE_STORAGE_CONNECTION_STRING'],
      required: true,
      description: 'storage account connection string',
    },
  ],
  async create(settings, context) {
    const { AzureQueue } = await import('./azure-queue.js');
    const { prefix: queuePrefix, visibilityTimeoutMs } = context;
    const options = { ...queueConsumerOptions(context), ...settingsAsOptions(settings, { connectionString: 'azureConnectionString' }) };
    return () => new AzureQueue({ ...options, queuePrefix, visibilityTimeoutMs });
  },
};
