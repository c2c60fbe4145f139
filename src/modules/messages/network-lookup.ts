import type { AppDeps } from "../../deps.ts";
import type { OutboundMessage } from "../../network/driver.ts";
import { findMedia } from "../media/repo.ts";
import { readMediaFile } from "../media/store.ts";
import { findByNetworkId } from "./repo.ts";

/** How far back the network may ask for a message again (its retry requests come within minutes to days). */
const RECENT_MS = 14 * 86_400_000;

/**
 * A recent outbound message of a session by its network id, for the network's retry requests
 * (baileys' `getMessage`): read from the database, so it works after a restart too. A media
 * message comes with its stored file (the driver uploads it again); when the file is gone it
 * cannot be answered (undefined).
 */
export async function recentOutbound(
  deps: Pick<AppDeps, "db" | "clock" | "config">,
  workspaceId: string,
  sessionId: string,
  networkMessageId: string,
): Promise<OutboundMessage | undefined> {
  const m = await findByNetworkId(deps.db, workspaceId, sessionId, networkMessageId, "outbound");
  if (!m || deps.clock.now().getTime() - m.createdAt > RECENT_MS) return undefined;
  const out: OutboundMessage = { to: m.phone, type: m.type, text: m.body ?? undefined };
  if (!m.mediaId) return out;
  const media = await findMedia(deps.db, workspaceId, m.mediaId);
  const data = media ? await readMediaFile(deps.config, workspaceId, media.id).catch(() => null) : null;
  if (!media || !data) return undefined;
  return { ...out, media: { data, mimeType: media.mimeType, filename: media.filename ?? undefined } };
}
