import type { AppDeps } from "../../deps.ts";
import { publishDelivered, publishRead } from "./events.ts";
import { findByNetworkId, sessionOwner, setReceiptStatus } from "./repo.ts";

export interface Receipt {
  sessionId: string;
  networkMessageId: string;
  status: "delivered" | "read";
  at: Date;
}

/**
 * Moves an outbound message forward on a receipt; never backwards. A read receipt on a
 * message not yet delivered also sets deliveredAt (and emits message_delivered first, so
 * every read message was delivered for a listener too). Repeated receipts change nothing.
 */
export async function applyReceipt(deps: Pick<AppDeps, "db" | "bus" | "log" | "clock">, r: Receipt): Promise<void> {
  const owner = await sessionOwner(deps.db, r.sessionId);
  if (!owner) return;
  const ws = owner.workspaceId;
  // the read of the row and the move forward in one transaction: two receipts cannot both move it
  await deps.db.tx(async () => {
    const m = await findByNetworkId(deps.db, ws, r.sessionId, r.networkMessageId, "outbound");
    if (!m) {
      deps.log.debug("receipt for an unknown message", { sessionId: r.sessionId, networkMessageId: r.networkMessageId });
      return;
    }
    const at = r.at.getTime();
    const now = deps.clock.now().getTime();
    if (r.status === "delivered") {
      if (await setReceiptStatus(deps.db, ws, m.id, ["sent"], { status: "delivered", deliveredAt: at, readAt: null, at: now })) await publishDelivered(deps, m, at);
      return;
    }
    const deliveredAt = m.deliveredAt ?? at;
    if (!(await setReceiptStatus(deps.db, ws, m.id, ["sent", "delivered"], { status: "read", deliveredAt, readAt: at, at: now }))) return;
    if (m.status === "sent") await publishDelivered(deps, m, deliveredAt);
    await publishRead(deps, m, at);
  });
}
