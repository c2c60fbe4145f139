import type { Config } from "../config.ts";

/** Base of absolute links (mail, media URLs): `publicUrl`, else the listen address; no trailing slash. */
export function publicBaseUrl(config: Pick<Config, "publicUrl" | "host" | "port">): string {
  const base = config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  return base.replace(/\/+$/, "");
}
