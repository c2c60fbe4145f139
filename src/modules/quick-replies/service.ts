import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { renderBody } from "../campaigns/variables.ts";
import { findContactByPhone } from "../contacts/repo.ts";
import { isLidAddress } from "../messages/recipient.ts";
import { deleteQuickReplyRow, findByShortcut, findQuickReply, insertQuickReply, listQuickReplies, updateQuickReplyRow, type QuickReplyRow } from "./repo.ts";

type Deps = Pick<AppDeps, "db" | "clock">;
const iso = (t: number) => new Date(Number(t)).toISOString();

/** API shape of a quick reply. */
export function quickReplyView(r: QuickReplyRow) {
  return { id: r.id, shortcut: r.shortcut, body: r.body, createdAt: iso(r.createdAt), updatedAt: iso(r.updatedAt) };
}

export async function pageQuickReplies(deps: Deps, workspaceId: string, q: { prefix?: string; page: number; limit: number }) {
  const { rows, total } = await listQuickReplies(deps.db, workspaceId, { prefix: q.prefix, limit: q.limit, offset: (q.page - 1) * q.limit });
  return { data: rows.map(quickReplyView), total };
}

export async function getQuickReply(deps: Deps, workspaceId: string, id: string) {
  const row = await findQuickReply(deps.db, workspaceId, id);
  if (!row) throw errors.notFound("Quick reply");
  return quickReplyView(row);
}

/** Creates a quick reply: 409 when the shortcut is taken. */
export async function createQuickReply(deps: Deps, workspaceId: string, userId: string | null, input: { shortcut: string; body: string }) {
  const at = deps.clock.now().getTime();
  const row: QuickReplyRow = { id: Bun.randomUUIDv7(), workspaceId, shortcut: input.shortcut, body: input.body, createdBy: userId, createdAt: at, updatedAt: at };
  await deps.db.tx(async () => {
    if (await findByShortcut(deps.db, workspaceId, input.shortcut)) throw errors.conflict(`The shortcut /${input.shortcut} is taken`);
    await insertQuickReply(deps.db, row);
  });
  return quickReplyView(row);
}

/** Changes a quick reply's shortcut or body: 404 when not the workspace's, 409 when the shortcut is another's. */
export async function updateQuickReply(deps: Deps, workspaceId: string, id: string, p: { shortcut?: string; body?: string }) {
  await deps.db.tx(async () => {
    if (!(await findQuickReply(deps.db, workspaceId, id))) throw errors.notFound("Quick reply");
    if (p.shortcut !== undefined) {
      const holder = await findByShortcut(deps.db, workspaceId, p.shortcut);
      if (holder && holder.id !== id) throw errors.conflict(`The shortcut /${p.shortcut} is taken`);
    }
    await updateQuickReplyRow(deps.db, workspaceId, id, p, deps.clock.now().getTime());
  });
  return getQuickReply(deps, workspaceId, id);
}

export async function deleteQuickReply(deps: Deps, workspaceId: string, id: string): Promise<void> {
  if (!(await deleteQuickReplyRow(deps.db, workspaceId, id))) throw errors.notFound("Quick reply");
}

/**
 * The text a send with `quickReplyId` carries: the quick reply's body with its variables filled
 * for the recipient's contact (no contact: the defaults, and the number for {{phone}}). 404 when
 * the quick reply is not the workspace's.
 */
export async function quickReplyText(deps: Pick<AppDeps, "db">, workspaceId: string, id: string, to: string): Promise<string> {
  const reply = await findQuickReply(deps.db, workspaceId, id);
  if (!reply) throw errors.notFound("Quick reply");
  const contact = await findContactByPhone(deps.db, workspaceId, to);
  return renderBody(reply.body, {
    name: contact?.name ?? null,
    pushName: contact?.pushName ?? null,
    // a LID is the network's stand-in for a hidden number: {{phone}} takes its default
    phone: isLidAddress(to) ? "" : to,
    attributes: contact?.attributes ?? {},
  });
}
