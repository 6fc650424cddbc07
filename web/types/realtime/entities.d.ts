import type { Message, Rtc, Session, Turn, Update } from "../protocol/types.js";
import { type Position } from "../state/db.js";
import { Emitter } from "../util/emitter.js";
export type EntityKind = "session" | "turn" | "message" | "rtc";
export type Entity = Session | Turn | Message | Rtc;
export type EntityChange = {
    kind: "session";
    entity: Session;
} | {
    kind: "turn";
    entity: Turn;
} | {
    kind: "message";
    entity: Message;
} | {
    kind: "rtc";
    entity: Rtc;
};
export interface EntityEvents {
    change: EntityChange;
    /** Local state was dropped and reloaded (epoch change, lost history). */
    reset: {
        epoch: string;
        offset: number;
    };
    /** The lists of one session were loaded. */
    hydrated: string;
}
/** The entity kind an update type changes (`rtc.updated` → `rtc`), or null if unknown. */
export declare function kindOf(type: string): EntityKind | null;
export declare class EntityStore {
    private readonly db;
    readonly events: Emitter<EntityEvents>;
    readonly sessions: Map<string, Session>;
    readonly turns: Map<string, Turn>;
    readonly messages: Map<string, Message>;
    readonly rtcs: Map<string, Rtc>;
    private readonly hydrated;
    private pos;
    /** `kind/sessionId` → ids of that session's entities of that kind. */
    private readonly bySession;
    /** `kind/sessionId` → sorted entities, until one of them changes. */
    private readonly views;
    private sessionList;
    constructor(db: IDBDatabase);
    /** The position every applied update is covered by; null before the first snapshot. */
    position(): Position | null;
    isHydrated(sessionId: string): boolean;
    /** Loads the persisted position and entities (one read transaction: consistent). */
    load(): Promise<void>;
    /**
     * Applies a contiguous run of updates of the current epoch and persists them
     * with the new position in one transaction. The caller (TopicSync) guarantees
     * order and contiguity.
     */
    apply(updates: Update[]): Promise<void>;
    /**
     * Merges entities read with a list/get method (no position change). Used to
     * hydrate a session and for results of calls.
     */
    merge(entities: {
        kind: EntityKind;
        entity: Entity;
    }[]): Promise<void>;
    markHydrated(sessionId: string, offset: number): Promise<void>;
    /**
     * Drops all local state and starts over from a snapshot read at `offset` of
     * `epoch` (protocol rule 5). Sessions come from `v1.session.list`; the other
     * entities are loaded per session when needed (hydration).
     */
    reset(epoch: string, offset: number, sessions: Session[]): Promise<void>;
    /** Sessions that are not deleted, newest first. Cached until a session changes: do not modify. */
    listSessions(): readonly Session[];
    /** A session's messages by seq. Cached until one of them changes: do not modify. */
    messagesOf(sessionId: string): readonly Message[];
    /** A session's turns by seq. Cached until one of them changes: do not modify. */
    turnsOf(sessionId: string): readonly Turn[];
    /** A session's RTCs in call order. Cached until one of them changes: do not modify. */
    rtcsOf(sessionId: string): readonly Rtc[];
    /**
     * The sorted entities of one kind of one session. The UI asks on every render,
     * so the answer is kept until an entity of that kind and session changes, and
     * built from a per-session index, not from every stored entity.
     */
    private view;
    /** Index and cache upkeep after an entity was set. */
    private indexed;
    private clearIndex;
    private mapOf;
    /** Sets the in-memory entity when newer; reports whether it changed. */
    private setMemory;
}
