import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { NetworkError } from "../../network/driver.ts";
import { getSession } from "../sessions/repo.ts";
import { numberChecker } from "./checker.ts";

export interface NumberStatus {
  phone: string;
  onNetwork: boolean;
}

/**
 * Whether numbers are on the network, in the order asked (repeats once). Cached answers need
 * nothing else; the rest are asked through the session, which must then be connected (502
 * CHATAPP_UNAVAILABLE otherwise, or when the network does not answer). A number the network
 * could not place counts as on it (a send to it is attempted).
 */
export async function checkNumbers(deps: AppDeps, workspaceId: string, sessionId: string, phones: string[]): Promise<NumberStatus[]> {
  const session = await getSession(deps.db, workspaceId, sessionId);
  if (!session) throw errors.notFound("Session");
  const checker = numberChecker(deps);
  const unique = [...new Set(phones)];
  const cached = await checker.cached(workspaceId, unique);
  let answers = cached;
  if (unique.some((p) => !cached.has(p))) {
    if (!checker.supported) throw errors.chatappUnavailable("This network cannot tell whether a number is on it");
    if (session.status !== "connected") throw errors.chatappUnavailable(`The session is not connected (${session.status}): numbers are checked through a connected session`);
    try {
      answers = await checker.check(workspaceId, sessionId, unique);
    } catch (err) {
      if (err instanceof NetworkError) throw errors.chatappUnavailable(`The network did not answer the check: ${err.message}`);
      throw err;
    }
  }
  return unique.map((phone) => ({ phone, onNetwork: answers.get(phone) ?? true }));
}
