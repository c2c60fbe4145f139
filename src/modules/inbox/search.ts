import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { cursorPagination } from "../../http/cursor.ts";
import { messagesByIds } from "../messages/repo.ts";
import { messageView } from "../messages/view.ts";
import { conversationRowsByIds } from "./repo.ts";
import { searchMessageIds, searchWords } from "./search-repo.ts";
import { conversationView } from "./service.ts";

type Deps = Pick<AppDeps, "db" | "config">;

/**
 * Messages of the workspace whose text holds every word of `q` (whole words, any case), newest
 * first, keyset pages by message id; each hit carries its conversation.
 */
export async function searchMessages(deps: Deps, workspaceId: string, q: { q: string; before?: string; after?: string; limit: number }) {
  const words = searchWords(q.q);
  if (!words.length) throw errors.validation({ q: "must contain a word (letters or digits)" });
  const ids = await searchMessageIds(deps.db, workspaceId, words, q);
  const hasMore = ids.length > q.limit;
  const pageIds = ids.slice(0, q.limit);
  if (q.after) pageIds.reverse();
  const rows = new Map((await messagesByIds(deps.db, workspaceId, pageIds)).map((m) => [m.id, m]));
  const hits = pageIds.map((id) => rows.get(id)).filter((m) => m !== undefined);
  const convs = new Map((await conversationRowsByIds(deps.db, workspaceId, [...new Set(hits.map((m) => m.conversationId))])).map((c) => [c.id, conversationView(c)]));
  return {
    data: hits.map((m) => ({ ...messageView(deps.config, m), conversation: convs.get(m.conversationId) ?? null })),
    pagination: cursorPagination(pageIds, hasMore, q),
  };
}
