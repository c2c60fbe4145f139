import { Link } from "wouter";
import type { Conversation } from "../../api/types.ts";
import { contactName } from "../../ui/hooks.ts";
import { fmtWhen, sessionLabel } from "./when.ts";

/** One row of the conversation list: name, number it belongs to, time, status, labels, last message. */
export function ConversationRow({ c, active }: { c: Conversation; active: boolean }) {
  const at = c.lastMessage?.at ?? c.lastMessage?.createdAt ?? c.lastMessageAt;
  const preview = c.lastMessage?.preview ?? c.lastMessage?.body ?? (c.lastMessage ? `[${c.lastMessage.type}]` : "");
  return (
    <Link href={`/inbox/${c.id}`} className={active ? "conv active" : "conv"} aria-current={active ? "true" : undefined}>
      <span className="conv-name">
        {contactName(c)}
        {c.groupId && <span className="badge group">group</span>}
      </span>
      <span className="conv-side">
        {at && <time dateTime={at} title={new Date(at).toLocaleString()}>{fmtWhen(at)}</time>}
        {c.unreadCount > 0 && (
          <span className="unread" aria-label={`${c.unreadCount} unread`}>
            {c.unreadCount}
          </span>
        )}
      </span>
      <span className="conv-number">
        {sessionLabel(c.session)}
        {c.status && c.status !== "open" && <span className={`badge status-${c.status}`}>{c.status}</span>}
        {c.snoozedUntil && new Date(c.snoozedUntil) > new Date() && <span className="badge">snoozed</span>}
        {c.labels?.map((l) => (
          <span key={l} className="badge label">
            {l}
          </span>
        ))}
      </span>
      <span className="conv-last">
        {c.lastMessage?.direction === "outbound" ? "You: " : ""}
        {preview}
      </span>
    </Link>
  );
}
