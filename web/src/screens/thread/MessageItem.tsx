import { useState } from "react";
import { api, del } from "../../api/client.ts";
import type { Conversation, Message } from "../../api/types.ts";
import { download } from "../../ui/download.ts";
import { fmtAddress, fmtDate, useAction } from "../../ui/hooks.ts";

const TICK: Record<string, string> = { queued: "queued", sent: "sent ✓", delivered: "delivered ✓✓", read: "read ✓✓", failed: "failed", cancelled: "cancelled" };
const EMOJI = ["👍", "❤️", "😂", "🙏"];

/** One entry of the thread: a message (with its receipts, a scheduled send's time, a react button) or an internal note. */
export function MessageItem({ m, conv, messaging, hit }: { m: Message; conv: Conversation; messaging: boolean; hit: boolean }) {
  if (m.type === "note") {
    return (
      <li id={`m-${m.id}`} className="note" aria-label="Internal note">
        <strong className="note-tag">Internal note · {m.author?.name ?? "a member"}</strong>
        <p>{m.body}</p>
        <small>{fmtDate(m.createdAt)} · only the team sees this</small>
      </li>
    );
  }
  const quoted = typeof m.replyTo === "object" && m.replyTo ? m.replyTo : null;
  return (
    <li id={`m-${m.id}`} className={`msg ${m.direction}${m.type === "reaction" ? " reaction" : ""}${hit ? " hit" : ""}${m.status === "scheduled" ? " scheduled" : ""}`}>
      {m.participant && <strong className="msg-sender">{m.participantName ?? fmtAddress(m.participant)}</strong>}
      {quoted && <blockquote className="quoted">{quoted.body ?? `[${quoted.type ?? "message"}]`}</blockquote>}
      {m.mediaId && (
        <button type="button" className="link" onClick={() => void download(`/api/v1/media/${m.mediaId}`, m.filename ?? `${m.type}-${m.id}`)}>
          Download {m.type} {m.filename ?? ""}
        </button>
      )}
      {m.body && <p>{m.type === "reaction" ? `Reacted ${m.body}` : m.body}</p>}
      <small>
        {m.status === "scheduled" && m.sendAt ? <>Scheduled for {fmtDate(m.sendAt)}</> : fmtDate(m.createdAt)}
        {m.automationId && (
          <>
            {" · "}
            <span className="badge" data-testid="automated">
              Automated
            </span>
          </>
        )}
        {m.direction === "outbound" && m.status !== "scheduled" && <> · {TICK[m.status ?? ""] ?? m.status}</>}
        {m.status === "failed" && m.error && <> · {typeof m.error === "string" ? m.error : m.error.message}</>}
      </small>
      {messaging && m.status === "scheduled" && <CancelScheduled m={m} conv={conv} />}
      {messaging && m.type !== "reaction" && m.status !== "scheduled" && m.status !== "cancelled" && !conv.groupId && <React m={m} conv={conv} />}
    </li>
  );
}

function CancelScheduled({ m, conv }: { m: Message; conv: Conversation }) {
  const cancel = useAction(() => del(`/api/v1/messages/${m.id}`), [["thread", conv.id, "messages"]]);
  return (
    <button type="button" className="link" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
      Cancel scheduled message
    </button>
  );
}

function React({ m, conv }: { m: Message; conv: Conversation }) {
  const [open, setOpen] = useState(false);
  const react = useAction(
    (emoji: string) =>
      api("POST", "/api/v1/messages/send", { session_id: conv.sessionId, to: conv.phone, type: "reaction", reaction: { messageId: m.id, emoji } }, { "idempotency-key": crypto.randomUUID() }),
    [["thread", conv.id, "messages"]],
    () => setOpen(false),
  );
  return (
    <div className="react">
      <button type="button" className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>
        React
      </button>
      {open && (
        <span role="group" aria-label="Reactions">
          {EMOJI.map((e) => (
            <button key={e} type="button" className="emoji" aria-label={`React ${e}`} onClick={() => react.mutate(e)} disabled={react.isPending}>
              {e}
            </button>
          ))}
        </span>
      )}
      {react.error ? <small className="field-error">The reaction was not sent: {(react.error as Error).message}</small> : null}
    </div>
  );
}
