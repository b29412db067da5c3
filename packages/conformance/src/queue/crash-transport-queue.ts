import type { IQueue } from '@km/core';
import { TransportQueue, type QueueTransport } from '@km/core/connector';

/** The parts of core's consumer engine a crash stops (private to `TransportQueue`; kept in step with it). */
interface EngineInternals {
  closed: boolean;
  consuming: Promise<void> | undefined;
  held: Map<unknown, { stop(): Promise<void> } | undefined>;
  transport: QueueTransport;
  wake(): void;
}

/**
 * Ends a `TransportQueue` as a crashed process would: the receive loop and lease renewals stop,
 * nothing it holds is acknowledged, retried or released, and its transport closes (a broker
 * drops the connection). Resolves with a skip reason when the queue is not on core's engine, or
 * when its transport has neither leases nor a broker that takes messages back on disconnect
 * (messages then live in the process, and go with it).
 */
export async function crashTransportQueue(queue: IQueue): Promise<string | undefined> {
  if (!(queue instanceof TransportQueue)) return 'the queue is not a TransportQueue: give the suite a `crash` option';
  const engine = queue as unknown as EngineInternals;
  const { leaseMs, releasesOnClose } = engine.transport.capabilities;
  if (!leaseMs && !releasesOnClose) return 'messages are held in process memory: a crash loses them with the process';
  engine.closed = true;
  engine.wake();
  await engine.consuming;
  const leases = [...engine.held.values()];
  engine.held.clear(); // a handler finishing later finds its message gone and settles nothing
  for (const lease of leases) await lease?.stop();
  await engine.transport.close();
  return undefined;
}
