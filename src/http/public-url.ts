import type { Config } from "../config.ts";

/** `http://host:port`, with an IPv6 host in brackets. */
export function hostUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Base of absolute links (mail, media URLs): `publicUrl`, else the listen address; no trailing slash. */
export function publicBaseUrl(config: Pick<Config, "publicUrl" | "host" | "port">): string {
  const base = config.publicUrl ?? hostUrl(config.host, config.port);
  return base.replace(/\/+$/, "");
}
