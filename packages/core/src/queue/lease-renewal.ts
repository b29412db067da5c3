/**
 * Renews one held message's lease every third of `leaseMs` (at least every 50 ms) while its
 * handler runs, one renewal at a time; a renewal that fails is reported and tried again at the
 * next tick. The timer does not keep the process alive.
 */
export class LeaseRenewal {
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> | undefined;

  constructor(renew: () => Promise<void>, leaseMs: number, onError: (error: unknown) => void) {
    this.timer = setInterval(
      () => {
        if (this.renewing) return;
        this.renewing = renew()
          .catch(onError)
          .finally(() => {
            this.renewing = undefined;
          });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    this.timer.unref?.();
  }

  /** Stops renewing and waits for a renewal in flight: a backend may hand out a new receipt that settling needs. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
  }
}
