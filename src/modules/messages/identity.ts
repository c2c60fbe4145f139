import type { AppDeps } from "../../deps.ts";
import { mergeContactInto } from "../contacts/service.ts";
import { absorbConversation, conversationsOfPhone, setConversationPhone } from "../inbox/repo.ts";
import { moveConversationMessages, sessionOwner, setMessagesPhone, setParticipantPhone } from "./repo.ts";
import { renameMember } from "../groups/repo.ts";

type Deps = Pick<AppDeps, "db" | "clock" | "log">;

export interface IdentityMerge {
  contactId: string | null;
  /** conversations moved to the number (renamed or folded into the number's own) */
  conversations: number;
  messages: number;
}

/**
 * The network told which number is behind a LID address (`<digits>@lid`): one person was
 * recorded twice, first by the LID and later by the number. Everything of the workspace
 * recorded under the LID moves to the number, in ONE transaction: the contacts merge (see
 * mergeContactInto), each session's LID conversation is renamed, or folded into that session's
 * conversation with the number, and every message's address is rewritten (a group message's
 * writer, and the member lists of groups, too). Idempotent: nothing
 * recorded under the LID, nothing changes. Returns null for an unknown session.
 */
export async function mergeIdentity(deps: Deps, sessionId: string, lid: string, phone: string): Promise<IdentityMerge | null> {
  const owner = await sessionOwner(deps.db, sessionId);
  if (!owner || !lid.endsWith("@lid") || !/^\d+$/.test(phone)) return null;
  const ws = owner.workspaceId;
  const result = await deps.db.tx(async () => {
    const at = deps.clock.now().getTime();
    const contactId = await mergeContactInto(deps, ws, lid, phone, at);
    const moved = await conversationsOfPhone(deps.db, ws, lid);
    for (const c of moved) {
      const own = (await conversationsOfPhone(deps.db, ws, phone)).find((o) => o.sessionId === c.sessionId);
      if (!own) {
        await setConversationPhone(deps.db, ws, c.id, phone, contactId, at);
        continue;
      }
      await moveConversationMessages(deps.db, ws, c.id, own.id);
      await absorbConversation(deps.db, ws, c, own.id, contactId, at);
    }
    const messages = (await setMessagesPhone(deps.db, ws, lid, phone, at)) + (await setParticipantPhone(deps.db, ws, lid, phone, at));
    await renameMember(deps.db, ws, lid, phone, at);
    return { contactId, conversations: moved.length, messages };
  });
  if (result.conversations || result.messages) deps.log.info("a LID address turned out to be a phone number; merged", { sessionId, lid, phone, ...result });
  return result;
}
