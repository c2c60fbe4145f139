import { describe, expect, test } from "bun:test";
import { BOOLEAN_SETTINGS, configSchema, loadConfig, parseSettings } from "../src/config.ts";
import { SETTINGS } from "../src/config-fields.ts";
import { innerType } from "../src/config-defaults.macro.ts";

// loadConfig builds only the schemas of the settings it is given and takes the others' values
// from a table made when the binary is built: it must give what the whole schema gives.
const whole = (raw: Record<string, unknown>) => {
  const r = configSchema().safeParse(raw);
  return r.success ? { success: true, data: r.data } : { success: false, key: String(r.error.issues[0]!.path[0]), message: r.error.issues[0]!.message };
};

describe("settings without building every schema", () => {
  test("nothing given: every default, exactly as the whole schema parses it", () => {
    const fast = parseSettings({});
    expect(fast).toEqual(whole({}) as never);
    // the same keys (a setting with no value is absent, not undefined)
    expect(Object.keys(fast.success ? fast.data : {}).sort()).toEqual(Object.keys((whole({}) as { data: object }).data).sort());
  });

  test("given values, empty strings, bad values: the same result and the same first issue", () => {
    const cases: Record<string, unknown>[] = [
      { port: "4000", host: "0.0.0.0", network: "sim", corsOrigins: "https://a.com, https://b.com" },
      { nodeId: "", waVersion: "", publicUrl: "", simUrl: "", defaultCountry: " in " },
      { trustProxy: true, webhookAllowHttp: "yes", webhookRetrySchedule: "1,2,3", waWatchdogMs: "0" },
      { port: "eighty" },
      { port: "eighty", network: "pigeon" },
      { jwtSecret: "short", metricsToken: "x" },
      { waWatchdogMs: "5" },
      { nodeId: "bad name!" },
      { webhookRetrySchedule: "" },
      { mobileSession: "not-a-uuid" },
    ];
    for (const raw of cases) expect({ raw, result: parseSettings(raw) }).toEqual({ raw, result: whole(raw) as never });
  });

  test("each config gets its own lists", () => {
    const a = loadConfig();
    const b = loadConfig();
    expect(a.webhookRetrySchedule).toEqual(b.webhookRetrySchedule);
    expect(a.webhookRetrySchedule).not.toBe(b.webhookRetrySchedule);
  });

  test("the switches are the boolean settings", () => {
    const booleans = Object.entries(SETTINGS).filter(([, make]) => innerType(make()) === "boolean").map(([k]) => k);
    expect([...BOOLEAN_SETTINGS].sort()).toEqual(booleans.sort());
    expect(booleans.length).toBeGreaterThan(0);
  });
});
