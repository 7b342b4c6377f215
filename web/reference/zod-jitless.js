// Zod, inside Scalar's bundle, finds out whether it may compile validators by calling Function(),
// which this page's policy (no 'unsafe-eval') refuses, and reports, every time. In jitless mode it
// skips that test and validates without compiling, as it would after the refusal.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig ?? {}, { jitless: true });
