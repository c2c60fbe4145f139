/**
 * A group chat's address on the network: `<digits>@g.us`, or the older `<digits>-<digits>@g.us`
 * (the creator's number and the creation time). The sim network's groups use the same form.
 */
export const GROUP_ADDRESS = /^\d{1,20}(-\d{1,20})?@g\.us$/;

/** Whether an address (a message's or conversation's `phone`, a send's target) is a group chat. */
export function isGroupAddress(address: string | null | undefined): boolean {
  return typeof address === "string" && GROUP_ADDRESS.test(address);
}
