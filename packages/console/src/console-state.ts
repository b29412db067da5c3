/** The console's shared state: the chosen index, and who wants to know when it changes. */
export class ConsoleState {
  private current: string;
  private readonly listeners: Array<(index: string) => void> = [];

  constructor(index: string) {
    this.current = index;
  }

  get index(): string {
    return this.current;
  }

  set index(value: string) {
    if (value === this.current) return;
    this.current = value;
    for (const listener of this.listeners) listener(value);
  }

  onIndexChange(listener: (index: string) => void): void {
    this.listeners.push(listener);
  }
}
