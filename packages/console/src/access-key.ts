const STORAGE_KEY = 'km-console-access-key';

/** The access key of this tab: kept in sessionStorage only, so it ends with the tab. */
export const accessKey = {
  get(): string | undefined {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  },
  set(key: string): void {
    sessionStorage.setItem(STORAGE_KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(STORAGE_KEY);
  },
};
