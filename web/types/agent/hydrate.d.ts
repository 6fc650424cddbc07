import type { Message } from "../protocol/types.js";
import type { EntityStore } from "../realtime/entities.js";
import type { Call } from "../realtime/topic.js";
/** Returns the messages still streaming (their text so far must be fetched). */
export declare function hydrateSession(store: EntityStore, call: Call, sessionId: string): Promise<Message[]>;
