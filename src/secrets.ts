import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Secrets } from "./deps.ts";

const FILE = "secrets.json";

/** Loads the data dir's secrets, generating them (mode 0600) on first start. Configured values win. */
export function loadSecrets(config: Config): Secrets {
  const path = join(config.dataDir, FILE);
  let stored: Partial<Secrets> = {};
  if (existsSync(path)) stored = JSON.parse(readFileSync(path, "utf8")) as Partial<Secrets>;
  const generated: Secrets = {
    jwtSecret: stored.jwtSecret ?? randomHex(48),
    credentialKey: stored.credentialKey ?? randomHex(32),
  };
  if (generated.jwtSecret !== stored.jwtSecret || generated.credentialKey !== stored.credentialKey) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(path, JSON.stringify(generated, null, 2) + "\n", { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return { ...generated, jwtSecret: config.jwtSecret ?? generated.jwtSecret };
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
