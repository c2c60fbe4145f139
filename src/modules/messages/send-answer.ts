/** The 202 answer of a send (docs/messages.md). */
export interface SendAnswer {
  id: string;
  status: "queued" | "scheduled";
  sessionId: string;
  /** the recipient, or the group of a send with groupId */
  to: string;
  type: string;
  createdAt: string;
  /** a scheduled send: when it is queued; null for a send queued at once */
  sendAt: string | null;
}
