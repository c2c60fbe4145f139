import type { Database } from "bun:sqlite";
import type { NetworkDriver } from "../network/driver.ts";
import type { MobileMessage } from "./notifier.ts";

/** Sends a code as a chat message over the operator's paired session, named by id or name (D4). */
export async function sendOverSession(sqlite: Database, network: NetworkDriver, sessionRef: string, m: MobileMessage): Promise<void> {
  // the operator names one session for the whole installation, so this lookup spans workspaces
  const rows = sqlite
    .query("SELECT id, status FROM chat_sessions WHERE id = ? OR name = ? ORDER BY created_at")
    .all(sessionRef, sessionRef) as { id: string; status: string }[];
  if (!rows.length) throw new Error(`no session named "${sessionRef}"`);
  const connected = rows.filter((r) => r.status === "connected");
  if (!connected.length) throw new Error(`session "${sessionRef}" is not connected`);
  if (connected.length > 1) throw new Error(`several connected sessions are named "${sessionRef}"; configure its id instead`);
  await network.send(connected[0]!.id, { to: m.to, type: "text", text: m.text });
}

/** Sends a code through a generic SMS gateway: JSON POST {to, text}; any 2xx is success (D4). */
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
