// Shared state of the end-to-end suite.
import type { HostServer, Paths } from "./servers.js";

export let host: HostServer;
export let paths: Paths;

export function setHost(h: HostServer, p: Paths): void {
  host = h;
  paths = p;
}
