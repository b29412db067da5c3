import { describeQueue } from '@km/conformance';
import { InMemoryQueue, InMemoryQueueBroker } from '@km/core';

const broker = new InMemoryQueueBroker();
describeQueue('InMemoryQueue', { create: (settings) => new InMemoryQueue({ broker, ...settings }) });
