import type { AppDeps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import type { MessageType } from "../../network/driver.ts";
import type { SimControl } from "../../network/sim/control.ts";
import { sessionOf } from "../sessions/service.ts";
import { sessionGroupsSetting } from "./session-setting.ts";
import { watchStored } from "./stored.ts";
import { simGroupOf } from "./groups.ts";

/** The simulated network's side (docs/network-drivers.md), acting on a session of the caller's workspace. */
export class SimService {
  constructor(
    private deps: AppDeps,
    private sim: SimControl,
  ) {}

  /** A phone scans the current QR: pairing completes and the session connects. */
  async scan(workspaceId: string, sessionId: string, phoneNumber: string): Promise<void> {
    await sessionOf(this.deps, workspaceId, sessionId);
    if ((await this.sim.stateOf(sessionId)) !== "qr") throw errors.conflict("No QR code is pending for this session on the sim network");
    await this.sim.scan(sessionId, phoneNumber);
  }

  /**
   * A contact sends a message to the session's number. Resolves once Parley stored it (a client
   * may read it at once), with the network's message id and the stored message's id.
   */
  async inbound(
    workspaceId: string,
    sessionId: string,
    m: { from: string; pushName?: string; groupId?: string; type: MessageType; text?: string; mediaUrl?: string },
  ): Promise<{ networkMessageId: string; messageId: string | null }> {
    // the row's groups setting only (no link state: the sim says whether it is connected)
    const session = await sessionGroupsSetting(this.deps, workspaceId, sessionId);
    await this.requireLinked(sessionId);
    const group = m.groupId ? await simGroupOf(this.sim, sessionId, m.groupId) : undefined;
    const message = { from: m.from, pushName: m.pushName, type: m.type, text: m.text, mediaUrl: m.mediaUrl, ...(group ? { group } : {}) };
    // the session drops group messages while its groups setting is off: nothing to wait for
    if (group && !session.groups) return { networkMessageId: await this.sim.inbound(sessionId, message), messageId: null };
    // a sim in this process delivers to this process: its commit is told here, no look-up needed
    const stored = watchStored(this.deps, workspaceId, sessionId, { poll: !this.sim.local });
    let networkMessageId: string;
    try {
      networkMessageId = await this.sim.inbound(sessionId, message);
    } catch (err) {
      stored.cancel();
      throw err;
    }
    return { networkMessageId, messageId: await stored.wait(networkMessageId) };
  }

  /** The recipient's phone reports delivery or reading of a sent message. */
  async receipt(workspaceId: string, sessionId: string, messageId: string, status: "delivered" | "read"): Promise<string> {
    await sessionOf(this.deps, workspaceId, sessionId);
    const networkMessageId = await this.networkIdOf(workspaceId, sessionId, messageId);
    if (!networkMessageId) throw errors.notFound("Message");
    await this.sim.receipt(sessionId, networkMessageId, status);
    return networkMessageId;
  }

  /** The network ends the link (logged_out, banned) or hands it to another client (replaced). */
  async logout(workspaceId: string, sessionId: string, reason: "logged_out" | "replaced" | "banned"): Promise<void> {
    await this.requireConnected(workspaceId, sessionId);
    await this.sim.logout(sessionId, reason);
  }

  /** The next `count` sends of the session fail with `code`. */
  async fail(workspaceId: string, sessionId: string, count: number, code?: string): Promise<void> {
    await sessionOf(this.deps, workspaceId, sessionId);
    if (!(await this.sim.stateOf(sessionId))) throw errors.conflict("The session is not active on the sim network");
    await this.sim.failNextSends(sessionId, count, code);
  }

  private async requireConnected(workspaceId: string, sessionId: string) {
    const session = await sessionOf(this.deps, workspaceId, sessionId);
    await this.requireLinked(sessionId);
    return session;
  }

  private async requireLinked(sessionId: string): Promise<void> {
    if ((await this.sim.stateOf(sessionId)) !== "connected") throw errors.conflict("The session is not connected on the sim network");
  }

  /** Receipts name the network's message id; the id Parley gave the message is accepted too. */
  private async networkIdOf(workspaceId: string, sessionId: string, messageId: string): Promise<string | null> {
    if (await this.sim.hasSent(sessionId, messageId)) return messageId;
    const row = await this.deps.db
      .prepare<{ id: string | null }>("SELECT network_message_id AS id FROM messages WHERE workspace_id = ? AND id = ?")
      .get(workspaceId, messageId);
    return row?.id && (await this.sim.hasSent(sessionId, row.id)) ? row.id : null;
  }
}
