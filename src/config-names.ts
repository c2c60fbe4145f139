// A setting's names outside the code, from its key: here alone, so that the build-time macro
// (config-defaults.macro.ts) and the start's reader (config-load.ts) spell them the same way.

/** `dataDir` -> `PARLEY_DATA_DIR` */
export function envName(key: string): string {
  return "PARLEY_" + key.replace(/([A-Z])/g, "_$1").toUpperCase();
}

/** `dataDir` -> `--data-dir` */
export function flagName(key: string): string {
  return "--" + key.replace(/([A-Z])/g, "-$1").toLowerCase();
}
