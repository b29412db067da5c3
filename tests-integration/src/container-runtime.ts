let probe: Promise<string | undefined> | undefined;

/**
 * Undefined when a container runtime answers (Testcontainers can start images), else the
 * reason it cannot. Probed once per process.
 */
export function containerRuntimeUnavailable(): Promise<string | undefined> {
  probe ??= (async () => {
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      await getContainerRuntimeClient();
      return undefined;
    } catch (error) {
      return `no container runtime answers (${(error as Error).message.split('\n')[0]})`;
    }
  })();
  return probe;
}
