import type { AppDeps } from "../../deps.ts";
import { groupOnce, onGroupWarm } from "../../db/group-memo.ts";
import type { DB } from "../../db/store.ts";
import type { AppEvent, TransactionalSubscriber } from "../../events/bus.ts";
import { storedByPhone, updateStoredContact } from "./store.ts";

/** The workspace's keywords: read once per group commit of inbound messages (nothing there changes them). */
function keywordsOf(db: DB, workspaceId: string): Promise<{ optOut: string[]; optIn: string[] } | null> {
  return groupOnce(`contacts.keywords\u0000${workspaceId}`, () => readKeywords(db, workspaceId));
}

async function readKeywords(db: DB, workspaceId: string): Promise<{ optOut: string[]; optIn: string[] } | null> {
  const row = await db
    .prepare<{ optOut: string; optIn: string }>('SELECT opt_out_keywords AS "optOut", opt_in_keywords AS "optIn" FROM workspaces WHERE id = ?')
    .get(workspaceId);
  return row ? { optOut: JSON.parse(row.optOut), optIn: JSON.parse(row.optIn) } : null;
}

/**
 * Trimmed, case-insensitive, and trailing punctuation ignored: people write "Stop." or "STOP!",
 * and an opt-out missed is a complaint (or a ban) while a wrong one costs one re-opt-in.
 */
const bare = (s: string) => s.trim().replace(/[\s.!?,;:。！？]+$/u, "").toUpperCase();
const same = (a: string, b: string) => bare(a) === bare(b);

/**
 * Opt-out/opt-in keywords (docs/contacts-and-campaigns.md): a message_received whose text, trimmed, equals (any case, trailing
 * punctuation ignored) one of the workspace's opt-out keywords opts the contact out; an opt-in
 * keyword opts it back in.
 * Runs inside the inbound transaction (an EventBus `onPublish` subscriber), right after the
 * contact was found or created, so the message and the opt-out commit together. No event of
 * its own: the contact row is the record.
 */
export function keywordSubscriber(deps: Pick<AppDeps, "db" | "clock">): TransactionalSubscriber {
  // an inbound group reads them at its start, with its other reads (PostgreSQL)
  onGroupWarm(deps.db, (workspaceId) => keywordsOf(deps.db, workspaceId));
  // synchronous for every other event (the bus awaits only a promise)
  return (e) => (e.event === "message_received" && e.data.type === "text" ? onText(e) : undefined); // a caption is not a reply
  async function onText(e: AppEvent): Promise<void> {
    if (e.data.groupId) return; // a word said in a group is not said to the business
    const text = typeof e.data.text === "string" ? e.data.text.trim() : "";
    const from = e.data.from;
    if (!text || text.length > 40 || typeof from !== "string") return;
    const kw = await keywordsOf(deps.db, e.workspaceId);
    if (!kw) return;
    const optOut = kw.optOut.some((k) => same(k, text));
    const optIn = !optOut && kw.optIn.some((k) => same(k, text));
    if (!optOut && !optIn) return;
    const c = await storedByPhone(deps.db, e.workspaceId, from);
    if (!c || c.optedOut === optOut) return;
    await updateStoredContact(deps.db, e.workspaceId, c, { name: c.name, tags: c.tags, attributes: c.attributes, optedOut: optOut }, deps.clock.now().getTime());
  }
}
