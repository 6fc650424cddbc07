// Commands typed in the composer instead of a message. Only the names listed
// here are commands; any other text, slashes included ("/etc/hosts?"), is sent
// as a message.

export type Command = { name: "compact"; instruction?: string };

/** The command `text` asks for, or null when it is a message. */
export function parseCommand(text: string): Command | null {
  const m = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  const instruction = m[1]?.trim();
  return instruction ? { name: "compact", instruction } : { name: "compact" };
}
