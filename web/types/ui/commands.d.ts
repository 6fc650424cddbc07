export type Command = {
    name: "compact";
    instruction?: string;
};
/** The command `text` asks for, or null when it is a message. */
export declare function parseCommand(text: string): Command | null;
