// @ag-ui/client checks every event with zod 4, which builds its object parsers
// with `new Function` unless told not to; under a CSP without 'unsafe-eval'
// the attempt is blocked and reported as a violation. Zod reads this setting
// (kept on globalThis) as each schema is built, so this module is imported
// before @ag-ui/client.
const g = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
g.__zod_globalConfig = { ...g.__zod_globalConfig, jitless: true };

export {};
