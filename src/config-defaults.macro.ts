import { RUNTIME_DEFAULTS, SETTINGS } from "./config-fields.ts";
import { envName } from "./config-names.ts";

/**
 * Bun macro (import it `with { type: "macro" }`): runs when the binary is built, or when the
 * source is first loaded, so a start reads the value of every setting nobody set from a literal
 * instead of building that setting's schema to parse nothing.
 * - `values`: each setting's value when neither a flag nor the environment sets it (settings
 *   whose value is then undefined are left out);
 * - `booleans`: the settings that are switches (their flag takes an optional value);
 * - `keys`: every setting, in the schema's order (a start reads them without loading the schemas);
 * - `envs`: each key's environment variable (`dataDir`: `PARLEY_DATA_DIR`), in the same order.
 * The settings whose default is made in the process (RUNTIME_DEFAULTS) are left out.
 */
export function configDefaults(): { values: Record<string, unknown>; booleans: string[]; keys: string[]; envs: string[] } {
  const values: Record<string, unknown> = {};
  const booleans: string[] = [];
  for (const [key, make] of Object.entries(SETTINGS)) {
    const schema = make();
    if (innerType(schema) === "boolean") booleans.push(key);
    if (Object.hasOwn(RUNTIME_DEFAULTS, key)) continue;
    const value = schema.parse(undefined);
    if (value !== undefined) values[key] = value;
  }
  const keys = Object.keys(SETTINGS);
  return { values, booleans, keys, envs: keys.map(envName) };
}

/** The type of a setting's innermost schema (defaults, optionals and preprocessing unwrapped). */
export function innerType(schema: unknown): string | undefined {
  let s = schema as { _zod?: { def: { type: string; innerType?: unknown; out?: unknown } } } | undefined;
  for (let i = 0; i < 10; i++) {
    const def = s?._zod?.def;
    if (!def) return undefined;
    if (def.type === "default" || def.type === "optional" || def.type === "nullable") s = def.innerType as typeof s;
    else if (def.type === "pipe") s = def.out as typeof s;
    else return def.type;
  }
  return undefined;
}
