// The tool-view bridge checks messages with zod 4, which builds its parsers
// with `new Function` unless told not to: a host page's CSP without
// 'unsafe-eval' blocks that and reports a violation. Zod reads this setting
// from globalThis as its modules load and as each schema is built, so it is
// set before the bridge's chunk is loaded. It changes how fast zod checks, not
// what it accepts (a zod of the host page's own reads it too).

/** Tells zod 4, on this page, to check without generated code. */
export function zodJitless(): void {
  const g = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  g.__zod_globalConfig = { ...g.__zod_globalConfig, jitless: true };
}
