import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { formatBytes, MEDIA_CAPS, mimeFitsKind, type MediaKind } from "./model.ts";
import { findMedia, insertMedia, type MediaRow } from "./repo.ts";
import { sniffMime } from "./sniff.ts";
import { removeMediaFile, writeMediaFile } from "./store.ts";
import type { MEDIA_SOURCES } from "./table.ts";
import { publicBaseUrl } from "../../http/public-url.ts";

type Deps = Pick<AppDeps, "db" | "config" | "clock">;
export type MediaSource = (typeof MEDIA_SOURCES)[number];

/** A media file written to the media storage whose row is not committed yet. */
export interface PreparedMedia {
  row: Omit<MediaRow, "workspaceId">;
  workspaceId: string;
}

export interface MediaInput {
  bytes: Uint8Array;
  declaredMime?: string | null;
  filename?: string | null;
  source: MediaSource;
}

/** What a media file must satisfy to be sent as `kind`; failures name `field`. */
export interface MediaCheck {
  kind: MediaKind;
  field: string;
}

/** Throws 400 naming `field` when bytes of `size` and `mimeType` cannot be sent as `kind`. */
export function checkMedia(size: number, mimeType: string, check: MediaCheck): void {
  if (size === 0) throw errors.validation({ [check.field]: "is empty" });
  const cap = MEDIA_CAPS[check.kind];
  if (size > cap) throw errors.validation({ [check.field]: `is ${formatBytes(size)}; ${check.kind} files may be at most ${formatBytes(cap)}` });
  if (!mimeFitsKind(mimeType, check.kind)) throw errors.validation({ [check.field]: `is ${mimeType}, not a valid ${check.kind}` });
}

/**
 * Sniffs the MIME type, checks it (when `check` is given) and writes the file. The row is
 * inserted by `commitMedia` inside the caller's transaction, so a refused request leaves no row.
 */
export async function prepareMedia(deps: Deps, workspaceId: string, input: MediaInput, check?: MediaCheck): Promise<PreparedMedia> {
  const mimeType = await sniffMime(input.bytes, input.declaredMime);
  if (check) checkMedia(input.bytes.byteLength, mimeType, check);
  const id = Bun.randomUUIDv7();
  const sha256 = new Bun.CryptoHasher("sha256").update(input.bytes).digest("hex");
  try {
    await writeMediaFile(deps.config, workspaceId, id, input.bytes);
  } catch (err) {
    // a half-written file (disk full) has no row and never will
    await removeMediaFile(deps.config, workspaceId, id).catch(() => {});
    throw err;
  }
  const filename = cleanFilename(input.filename);
  return {
    workspaceId,
    row: { id, mimeType, size: input.bytes.byteLength, filename, sha256, source: input.source, createdAt: deps.clock.now().getTime() },
  };
}

/** Inserts the row of a prepared file; call inside the transaction of the change that uses it. */
export async function commitMedia(deps: Pick<AppDeps, "db">, prepared: PreparedMedia): Promise<MediaRow> {
  await insertMedia(deps.db, prepared.workspaceId, prepared.row);
  return { ...prepared.row, workspaceId: prepared.workspaceId };
}

/** Removes the file of a prepared media whose change was refused. */
export async function discardMedia(deps: Pick<AppDeps, "config">, prepared: PreparedMedia): Promise<void> {
  await removeMediaFile(deps.config, prepared.workspaceId, prepared.row.id);
}

/** A stored media row of the workspace, or 404. */
export async function getMediaRow(deps: Pick<AppDeps, "db">, workspaceId: string, id: string): Promise<MediaRow> {
  const row = await findMedia(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Media");
  return row;
}

/** API shape of a media row. */
export function mediaView(m: MediaRow) {
  return { id: m.id, mimeType: m.mimeType, size: m.size, filename: m.filename, createdAt: new Date(m.createdAt).toISOString() };
}

/**
 * Absolute URL where a media file is downloaded with the workspace's credentials: under
 * /api/external for API keys (webhook receivers, scripts; docs/api.md), under /api/v1 for the dashboard.
 */
export function mediaUrl(config: AppDeps["config"], id: string, audience: "external" | "dashboard"): string {
  return `${publicBaseUrl(config)}${audience === "external" ? "/api/external/media" : "/api/v1/media"}/${id}`;
}

/** Keeps a file name to its last path segment, printable and short. */
export function cleanFilename(name: string | null | undefined): string | null {
  if (!name) return null;
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, "").trim().slice(0, 200);
  return clean || null;
}
