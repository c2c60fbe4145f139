import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { ApiKeyView, CreateApiKeyInput } from "./model.ts";
import { insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from "./repo.ts";

/** `lastUsed`: the server's batched uses (an operator command has none of its own) */
type Deps = Pick<AppDeps, "db" | "clock"> & Partial<Pick<AppDeps, "lastUsed">>;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_CHARS = 40; // 40 base62 characters: about 238 random bits
const PREFIX_CHARS = 11; // "pk_" and 8 characters, shown in lists

/** A new key: `pk_` + 40 base62 characters from the CSPRNG, without modulo bias. */
export function generateApiKey(): string {
  let out = "pk_";
  while (out.length < 3 + KEY_CHARS) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      if (b < 248 && out.length < 3 + KEY_CHARS) out += BASE62[b % 62]; // 248 = 4 * 62
    }
  }
  return out;
}

/** SHA-256 hex of a key, as stored (docs/api.md). */
export function hashApiKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function view(row: ApiKeyRow, lastUsed?: number): ApiKeyView {
  const last = Math.max(row.lastUsedAt ?? 0, lastUsed ?? 0) || null;
  return { id: row.id, name: row.name, prefix: row.prefix, createdAt: iso(row.createdAt)!, lastUsedAt: iso(last), expiresAt: iso(row.expiresAt) };
}

/** Creates a key; the only time the key itself is returned. */
export async function createApiKey(deps: Deps, workspaceId: string, input: CreateApiKeyInput, createdBy: string | null): Promise<ApiKeyView & { key: string }> {
  const now = deps.clock.now().getTime();
  const expiresAt = input.expiresAt ? Date.parse(input.expiresAt) : null;
  if (expiresAt !== null && expiresAt <= now) throw errors.validation({ expiresAt: "must be in the future" });
  const key = generateApiKey();
  const row: ApiKeyRow = {
    id: Bun.randomUUIDv7(),
    workspaceId,
    name: input.name,
    prefix: key.slice(0, PREFIX_CHARS),
    keyHash: hashApiKey(key),
    createdBy,
    createdAt: now,
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
  };
  await insertApiKey(deps.db, workspaceId, row);
  return { ...view(row), key };
}

/** Live keys of the workspace; `lastUsedAt` includes uses not flushed yet. */
export async function listKeys(deps: Deps, workspaceId: string, page: number, limit: number): Promise<{ items: ApiKeyView[]; total: number }> {
  const { rows, total } = await listApiKeys(deps.db, workspaceId, page, limit);
  return { items: rows.map((r) => view(r, deps.lastUsed?.peek(r.id))), total };
}

/** Revokes a key at once (the next request with it answers 401). */
export async function revokeKey(deps: Deps, workspaceId: string, id: string): Promise<void> {
  if (!(await revokeApiKey(deps.db, workspaceId, id, deps.clock.now().getTime()))) throw errors.notFound("API key");
}
