import type { DB } from "../db/store.ts";
import type { NetworkDriver } from "../network/driver.ts";
import type { MobileMessage } from "./notifier.ts";

/** Sends a code as a chat message over the operator's paired session, given by its id (docs/authentication.md). */
export async function sendOverSession(db: DB, network: NetworkDriver, sessionId: string, m: MobileMessage): Promise<void> {
  // The operator names one session for the whole installation, so this lookup spans workspaces.
  // By id only: any tenant can pick any session name, and a name match would hand it everyone's codes.
  const row = await db.prepare<{ id: string; status: string }>("SELECT id, status FROM chat_sessions WHERE id = ?").get(sessionId);
  if (!row) throw new Error(`no session with id "${sessionId}"`);
  if (row.status !== "connected") throw new Error(`session "${sessionId}" is not connected`);
  await network.send(row.id, { to: m.to, type: "text", text: m.text });
}

/** Sends a code through a generic SMS gateway: JSON POST {to, text}; any 2xx is success (docs/authentication.md). */
export async function sendOverHttp(url: string, m: MobileMessage, timeoutMs = 10_000): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ to: m.to, text: m.text }),
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  await res.body?.cancel();
  if (res.status < 200 || res.status > 299) throw new Error(`SMS gateway answered ${res.status}`);
}
