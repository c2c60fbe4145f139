import { isGroupAddress } from "../../network/group-address.ts";

/**
 * Whether something is a group chat rather than a person: an address (a message's or a
 * conversation's `phone`, a send's target), a stored message or conversation row (`phone`),
 * or an event's data (`groupId`, set on group messages only). Whatever answers people by
 * itself (auto-replies, campaigns) checks it and stays out of groups unless a person named
 * the group explicitly (docs/groups.md).
 */
export function isGroupChat(x: string | { phone?: unknown; groupId?: unknown } | null | undefined): boolean {
  if (typeof x === "string") return isGroupAddress(x);
  if (!x) return false;
  return (typeof x.groupId === "string" && x.groupId !== "") || (typeof x.phone === "string" && isGroupAddress(x.phone));
}
