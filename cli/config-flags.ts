import { Option, type Command } from "commander";
import { z } from "zod";
import { SETTING_HELP } from "./config-help.ts";
import { BOOLEAN_SETTINGS, configSchema, envName, flagName, type ConfigKey } from "../src/config.ts";
import { SETTINGS } from "../src/config-fields.ts";

/** Short forms of the settings people type most. */
const SHORT: Partial<Record<ConfigKey, string>> = { port: "-p", dataDir: "-d" };

/** The innermost schema of a setting (defaults, optionals and preprocessing unwrapped). */
function inner(schema: z.ZodType): z.ZodType {
  let s: any = schema;
  for (let i = 0; i < 10; i++) {
    const def = s?._zod?.def;
    if (!def) break;
    if (def.type === "default" || def.type === "optional" || def.type === "nullable") s = def.innerType;
    else if (def.type === "pipe") s = def.out;
    else break;
  }
  return s;
}

/** What a setting looks like in help: its choices, or its kind, and its default. */
function describe(shape: ReturnType<typeof configSchema>["shape"], key: ConfigKey): { help: string; bool: boolean } {
  const schema = shape[key] as z.ZodType;
  const base = inner(schema) as any;
  const def = base?._zod?.def;
  const bool = def?.type === "boolean";
  const choices = def?.type === "enum" ? Object.values(def.entries as Record<string, string>).join(", ") : null;
  const parsed = shape[key].safeParse(undefined);
  const dflt = parsed.success && parsed.data !== undefined && !(Array.isArray(parsed.data) && !parsed.data.length) ? String(parsed.data) : null;
  const what = SETTING_HELP[key] ?? schema.description ?? (choices ? `one of ${choices}` : key);
  return { help: `${what} (env ${envName(key)}${dflt !== null ? `, default ${dflt}` : ""})`, bool };
}

/**
 * Adds one flag per setting of the config schema to `cmd`: every setting is also a flag (boolean
 * ones take an optional value). Their help (kind, choices, default) needs every setting's schema:
 * it is made when the help is shown, not at every start of the command. `only`: just these
 * settings' flags (see flagsGiven), in the same order.
 */
export function addConfigFlags(cmd: Command, only: readonly string[] | null = null): Command {
  let help: Map<ConfigKey, string> | undefined;
  const helpOf = (key: ConfigKey): string => {
    if (!help) {
      const shape = configSchema().shape;
      help = new Map(SERVE_FLAG_KEYS.map((k) => [k as ConfigKey, describe(shape, k as ConfigKey).help]));
    }
    return help.get(key)!;
  };
  const keys = only ? SERVE_FLAG_KEYS.filter((k) => only.includes(k)) : SERVE_FLAG_KEYS;
  for (const key of keys as ConfigKey[]) {
    const long = flagName(key);
    const short = SHORT[key];
    const option = new Option(`${short ? `${short}, ` : ""}${long} ${BOOLEAN_SETTINGS.has(key) ? "[bool]" : "<value>"}`);
    Object.defineProperty(option, "description", { get: () => helpOf(key), enumerable: true, configurable: true });
    cmd.addOption(option);
  }
  return cmd;
}

/** Every setting is a flag of `serve`. */
export const SERVE_FLAG_KEYS: readonly string[] = Object.keys(SETTINGS);

/**
 * The settings the words after `serve` give as flags (`--port 4000`, `--port=4000`, `-p 4000`), when
 * every word that starts with "-" is one of the settings' flags; null otherwise (`--help`, a
 * misspelt or unknown flag, `--`, a value that starts with "-"). With the settings given, `serve`
 * registers only their flags: commander then reads the same values (no flag has a default of its
 * own, so the others are absent either way) without registering and scanning ≈80 options at every
 * start; anything else registers every flag, so help, errors and suggestions are commander's as before.
 */
export function flagsGiven(args: readonly string[]): string[] | null {
  const keys: string[] = [];
  for (const arg of args) {
    if (!arg.startsWith("-")) continue;
    const key = FLAG_KEY.get(arg.split("=", 1)[0]!);
    if (!key || (arg.includes("=") && !arg.startsWith("--"))) return null;
    keys.push(key);
  }
  return keys;
}

/** Each setting by its flag (`--data-dir`) and the short forms (`-d`). */
const FLAG_KEY = new Map<string, string>([
  ...SERVE_FLAG_KEYS.map((k) => [flagName(k), k] as [string, string]),
  ...Object.entries(SHORT).map(([k, short]) => [short, k] as [string, string]),
]);
