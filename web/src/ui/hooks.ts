import { useMutation, useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { tokenStore } from "../api/tokens.ts";
import type { Conversation } from "../api/types.ts";

/** The signed-in member's claims (role, workspace), live. */
export function useAuth() {
  return useSyncExternalStore(tokenStore.subscribe, tokenStore.get);
}

/** A mutation that refreshes the given cached lists when it succeeds. */
export function useAction<A, R>(fn: (a: A) => Promise<R>, invalidate: QueryKey[] = [], onDone?: (r: R, a: A) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (r, a) => {
      for (const key of invalidate) void qc.invalidateQueries({ queryKey: key });
      onDone?.(r, a);
    },
  });
}

export const fmtDate = (s: string | null | undefined) => (s ? new Date(s).toLocaleString() : "—");
export const fmtPhone = (p: string | null | undefined) => (p ? `+${p.replace(/^\+/, "")}` : "—");

/** A phone number as `+digits`; another address (a hidden number's `…@lid`, a group's id) as it is. */
export const fmtAddress = (a: string | null | undefined) => (a && !/^\+?\d+$/.test(a) ? a : fmtPhone(a));

/** The name a conversation goes by: a group's name; the contact's name, its push name, else the number. */
export const contactName = (c: Conversation) =>
  c.groupId ? (c.groupName ?? "Group chat") : (c.contact?.name ?? c.contact?.pushName ?? fmtAddress(c.phone));
