// A minimal typed event emitter. Listener errors are reported, never thrown into
// the emitter, so one faulty host callback cannot stop the SDK's own work.

export type Listener<T> = (value: T) => void;

export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn as Listener<never>);
    return () => set.delete(fn as Listener<never>);
  }

  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    for (const fn of [...(this.listeners.get(event) ?? [])]) {
      try {
        (fn as Listener<Events[K]>)(value);
      } catch (err) {
        console.error(`rtc-agent: a "${String(event)}" listener failed`, err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Serialises async tasks: each starts after the previous one settled. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** One-shot signals by key: a wait resolves when its key fires; a cancelled wait is dropped. */
export class KeyedSignals {
  private readonly waiting = new Map<string, Set<() => void>>();

  wait(key: string): { done: Promise<void>; cancel: () => void } {
    let fn = (): void => undefined;
    const done = new Promise<void>((resolve) => (fn = resolve));
    const set = this.waiting.get(key) ?? new Set();
    set.add(fn);
    this.waiting.set(key, set);
    const cancel = () => {
      set.delete(fn);
      if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
    };
    return { done, cancel };
  }

  fire(key: string): void {
    const set = this.waiting.get(key);
    this.waiting.delete(key);
    for (const fn of set ?? []) fn();
  }
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Exponential backoff for attempt n (0-based): 1 s, 2 s, 4 s, … capped at 30 s. */
export function backoffMs(attempt: number, baseMs = 1000, capMs = 30_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
}
