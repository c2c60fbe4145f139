import type { Database, Statement } from "bun:sqlite";
import type { AppDeps } from "../../deps.ts";
import type { TransactionalSubscriber } from "../../events/bus.ts";
import { storedByPhone, updateStoredContact } from "./store.ts";

const cache = new WeakMap<Database, Statement>();

function keywordsOf(sqlite: Database, workspaceId: string): { optOut: string[]; optIn: string[] } | null {
  let stmt = cache.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare("SELECT opt_out_keywords AS optOut, opt_in_keywords AS optIn FROM workspaces WHERE id = ?");
    cache.set(sqlite, stmt);
  }
  const row = stmt.get(workspaceId) as { optOut: string; optIn: string } | null;
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
export function keywordSubscriber(deps: Pick<AppDeps, "sqlite" | "clock">): TransactionalSubscriber {
  return (e) => {
    if (e.event !== "message_received" || e.data.type !== "text") return; // a caption is not a reply
    const text = typeof e.data.text === "string" ? e.data.text.trim() : "";
    const from = e.data.from;
    if (!text || text.length > 40 || typeof from !== "string") return;
    const kw = keywordsOf(deps.sqlite, e.workspaceId);
    if (!kw) return;
    const optOut = kw.optOut.some((k) => same(k, text));
    const optIn = !optOut && kw.optIn.some((k) => same(k, text));
    if (!optOut && !optIn) return;
    const c = storedByPhone(deps.sqlite, e.workspaceId, from);
    if (!c || c.optedOut === optOut) return;
    updateStoredContact(deps.sqlite, e.workspaceId, c, { name: c.name, tags: c.tags, attributes: c.attributes, optedOut: optOut }, deps.clock.now().getTime());
  };
}
