import type { DisconnectReason, GroupInfo, InboundMessage, NetworkDriver } from "../driver.ts";
import { SimDriver } from "./driver.ts";

export type SimState = "connecting" | "qr" | "connected";
export type SimInbound = Omit<InboundMessage, "networkMessageId" | "timestamp">;

/**
 * The network's side of the sim (a phone scans, a contact writes, the network logs out...), as
 * the sim routes drive it. The sim inside the node answers at once; a node linked to a separate
 * sim network process (`parley sim-network`) sends each call there, by name: a new operation is
 * one more method here and in `localControl`.
 */
export interface SimControl {
  stateOf(sessionId: string): Promise<SimState | null>;
  scan(sessionId: string, phoneNumber: string): Promise<void>;
  /** the network message id of the inbound message */
  inbound(sessionId: string, message: SimInbound): Promise<string>;
  receipt(sessionId: string, networkMessageId: string, status: "delivered" | "read"): Promise<void>;
  logout(sessionId: string, reason: Extract<DisconnectReason, "logged_out" | "replaced" | "banned">): Promise<void>;
  failNextSends(sessionId: string, count: number, code?: string): Promise<void>;
  markAbsent(phones: string[]): Promise<void>;
  hasSent(sessionId: string, networkMessageId: string): Promise<boolean>;
  /** a group chat the session is in, made with these members */
  createGroup(sessionId: string, name: string, participants: string[]): Promise<GroupInfo>;
  /** one of the session's groups, or null */
  groupOf(sessionId: string, groupId: string): Promise<GroupInfo | null>;
  /**
   * True for a sim running in this process (`localControl`): what it delivers goes to this
   * process's driver, so a message it is given is stored by this process, never by another node.
   */
  readonly local?: boolean;
}

export type SimOp = Exclude<keyof SimControl, "local">;

/** Every operation's name (the sim network process accepts these and no others). */
export const SIM_OPS: readonly SimOp[] = ["stateOf", "scan", "inbound", "receipt", "logout", "failNextSends", "markAbsent", "hasSent", "createGroup", "groupOf"];

/** The control of a sim running in this process. */
export function localControl(sim: SimDriver): SimControl {
  return {
    stateOf: async (id) => sim.stateOf(id) ?? null,
    scan: async (id, phone) => sim.scan(id, phone),
    inbound: async (id, m) => sim.inbound(id, m),
    receipt: async (id, nid, status) => sim.receipt(id, nid, status),
    logout: async (id, reason) => sim.logout(id, reason),
    failNextSends: async (id, count, code) => sim.failNextSends(id, count, code),
    markAbsent: async (phones) => sim.markAbsent(phones),
    hasSent: (id, nid) => sim.hasSent(id, nid),
    createGroup: async (id, name, participants) => sim.groups.create(id, name, participants),
    groupOf: async (id, groupId) => sim.groups.get(id, groupId) ?? null,
    local: true,
  };
}

/** A driver that is a sim network, in this process or reached through a link. */
export interface SimControlled {
  readonly simControl: SimControl;
}

/** The sim control of the node's driver, or null when it runs on the real network. */
export function simControlOf(network: NetworkDriver): SimControl | null {
  if (network instanceof SimDriver) return localControl(network);
  return "simControl" in network ? (network as NetworkDriver & SimControlled).simControl : null;
}
