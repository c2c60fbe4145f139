import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { WAVersion } from "baileys";
import type { Logger } from "../../log.ts";

/** How long a fetched latest version is trusted before asking again. */
export const VERSION_CACHE_TTL_MS = 24 * 3_600_000;
export const VERSION_CACHE_FILE = "wa-version.json";

/** `2.3000.1023223821` -> [2, 3000, 1023223821]. */
export function parseWaVersion(text: string): WAVersion {
  const parts = text.split(".").map(Number);
  if (parts.length !== 3 || parts.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new Error(`not a WhatsApp Web version: ${text}`);
  return parts as WAVersion;
}

export type FetchLatest = () => Promise<{ version: WAVersion; error?: unknown }>;

interface Cached {
  version: WAVersion;
  fetchedAt: number;
}

async function readCache(file: string): Promise<Cached | null> {
  try {
    const c = JSON.parse(await readFile(file, "utf8")) as Cached;
    return Array.isArray(c.version) && c.version.length === 3 && typeof c.fetchedAt === "number" ? c : null;
  } catch {
    return null;
  }
}

/**
 * The WhatsApp Web version to connect with. `waVersion` unset or `latest` (the default): the
 * network's current one, fetched from its web client (`fetchLatestWaWebVersion`) and cached in
 * the data dir with the time it was fetched, trusted for a day; when the fetch fails the cached
 * value is used however old, else baileys' bundled one (undefined). `bundled`: baileys' bundled
 * one, never fetched. `a.b.c`: that one. `fresh` skips the cache (the network just refused the
 * version in use).
 */
export async function resolveWaVersion(
  setting: string | undefined,
  o: { dataDir: string; log: Logger; fetchLatest: FetchLatest; now?: () => number; ttlMs?: number; fresh?: boolean },
): Promise<WAVersion | undefined> {
  if (setting === "bundled") return undefined;
  if (setting && setting !== "latest" && !o.fresh) return parseWaVersion(setting);
  const now = o.now ?? Date.now;
  const file = join(o.dataDir, VERSION_CACHE_FILE);
  const cached = await readCache(file);
  if (cached && !o.fresh && now() - cached.fetchedAt < (o.ttlMs ?? VERSION_CACHE_TTL_MS)) return cached.version;
  try {
    const latest = await o.fetchLatest();
    if (latest.error) throw latest.error;
    const fresh: Cached = { version: latest.version, fetchedAt: now() };
    await mkdir(dirname(file), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify(fresh));
    await rename(`${file}.tmp`, file);
    o.log.info("WhatsApp Web version fetched", { version: latest.version.join(".") });
    return latest.version;
  } catch (err) {
    o.log.warn("latest WhatsApp Web version not fetched; using the cached or bundled one", { cached: cached?.version.join("."), err });
    return cached?.version;
  }
}
