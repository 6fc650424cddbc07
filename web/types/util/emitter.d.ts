export type Listener<T> = (value: T) => void;
export declare class Emitter<Events extends {
    [K in keyof Events]: unknown;
}> {
    private readonly listeners;
    on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void;
    emit<K extends keyof Events>(event: K, value: Events[K]): void;
    clear(): void;
}
/** Serialises async tasks: each starts after the previous one settled. */
export declare class SerialQueue {
    private tail;
    run<T>(task: () => Promise<T>): Promise<T>;
}
export declare const sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
/** Exponential backoff for attempt n (0-based): 1 s, 2 s, 4 s, … capped at 30 s. */
export declare function backoffMs(attempt: number, baseMs?: number, capMs?: number): number;
