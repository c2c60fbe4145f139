import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link } from "wouter";
import { api, get, post, put, qs } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Conversation, Member, Message } from "../api/types.ts";
import { download, typeOf, upload } from "../ui/download.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select, TextArea } from "../ui/Field.tsx";
import { contactName, fmtAddress, fmtDate, fmtPhone, useAction, useAuth } from "../ui/hooks.ts";

const TICK: Record<string, string> = { queued: "queued", sent: "sent ✓", delivered: "delivered ✓✓", read: "read ✓✓", failed: "failed" };

/** One conversation: messages live, reply with text or an attachment, assign, mark read. */
export function Thread({ id }: { id: string }) {
  const { claims } = useAuth();
  const messaging = can(claims?.role, "messaging");
  const conv = useQuery({ queryKey: ["thread", id, "conv"], queryFn: () => get<Conversation>(`/api/v1/inbox/conversations/${id}`) });
  // newest first in pages of 50; older pages by the keyset cursor (docs/api.md)
  const msgs = useInfiniteQuery({
    queryKey: ["thread", id, "messages"],
    queryFn: ({ pageParam }) => api<Message[]>("GET", `/api/v1/inbox/conversations/${id}/messages${qs({ limit: 50, before: pageParam })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.pagination?.hasMore ? (last.pagination.nextCursor ?? undefined) : undefined),
  });
  const members = useQuery({ queryKey: ["members"], queryFn: () => get<Member[]>("/api/team/members?limit=100"), enabled: messaging });
  const read = useAction(() => post(`/api/v1/inbox/conversations/${id}/read`), [["conversations"], ["thread", id, "conv"]]);
  const assign = useAction((userId: string | null) => put(`/api/v1/inbox/conversations/${id}/assign`, { userId }), [["conversations"], ["thread", id, "conv"]]);
  const endRef = useRef<HTMLDivElement>(null);

  const unread = conv.data?.unreadCount ?? 0;
  useEffect(() => {
    // an open thread is being read: new inbound messages are marked read as they arrive
    if (messaging && unread > 0 && !read.isPending) read.mutate();
  }, [unread, messaging]); // eslint-disable-line react-hooks/exhaustive-deps

  const ordered = msgs.data ? msgs.data.pages.flatMap((p) => p.data).reverse() : [];
  // follow new messages, not the older pages loaded above
  const newest = ordered[ordered.length - 1]?.id;
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: "end" });
  }, [newest]);
  const c = conv.data;

  return (
    <article className="thread" aria-label="Conversation">
      <header className="thread-head">
        <Link href="/inbox" className="back">
          ← All conversations
        </Link>
        <h2>{c ? contactName(c) : "…"}</h2>
        {c && !c.groupId && contactName(c) !== fmtPhone(c.phone) && <p className="muted">{fmtAddress(c.phone)}</p>}
        {c?.groupId && (
          <details className="members">
            <summary>Group chat · {c.participants?.length ?? 0} members</summary>
            <ul aria-label="Group members">
              {c.participants?.map((p) => <li key={p}>{fmtAddress(p)}</li>)}
            </ul>
          </details>
        )}
        {c && messaging && (
          <Select
            label="Assigned to"
            name="userId"
            value={c.assignee?.id ?? ""}
            onChange={(e) => assign.mutate(e.target.value || null)}
            error={assign.error}
          >
            <option value="">Nobody</option>
            {members.data
              ?.filter((m) => m.role !== "viewer")
              .map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name} ({m.role})
                </option>
              ))}
          </Select>
        )}
        {c && !messaging && <p>Assigned to {c.assignee?.name ?? "nobody"}</p>}
      </header>
      <ErrorNote error={msgs.error ?? assign.error} />
      {msgs.hasNextPage && (
        <button type="button" className="secondary" onClick={() => void msgs.fetchNextPage()} disabled={msgs.isFetchingNextPage}>
          Show older messages
        </button>
      )}
      <ol className="messages" aria-live="polite" aria-label="Messages">
        {ordered.map((m) => (
          <li key={m.id} className={`msg ${m.direction}`}>
            {m.participant && <strong className="msg-sender">{m.participantName ?? fmtAddress(m.participant)}</strong>}
            {m.mediaId && (
              <button type="button" className="link" onClick={() => void download(`/api/v1/media/${m.mediaId}`, m.filename ?? `${m.type}-${m.id}`)}>
                Download {m.type} {m.filename ?? ""}
              </button>
            )}
            {m.body && <p>{m.body}</p>}
            <small>
              {fmtDate(m.createdAt)}
              {m.automationId && (
                <>
                  {" · "}
                  <span className="badge" data-testid="automated">
                    Automated
                  </span>
                </>
              )}
              {m.direction === "outbound" && <> · {TICK[m.status] ?? m.status}</>}
              {m.status === "failed" && m.error && <> · {typeof m.error === "string" ? m.error : m.error.message}</>}
            </small>
          </li>
        ))}
      </ol>
      <div ref={endRef} />
      {c && messaging && <Reply conv={c} />}
    </article>
  );
}

function Reply({ conv }: { conv: Conversation }) {
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const send = useAction(
    async () => {
      // a group conversation's reply goes to the group
      const body: Record<string, unknown> = { session_id: conv.sessionId, ...(conv.groupId ? { groupId: conv.groupId } : { to: conv.phone }), type: "text", body: text };
      if (file) {
        const media = await upload(file);
        Object.assign(body, { type: typeOf(media.mimeType), mediaId: media.id, filename: file.name });
        if (!text) delete body.body;
      }
      // a fresh key per press: a retried request after a lost answer is not sent twice
      return api("POST", "/api/v1/messages/send", body, { "idempotency-key": crypto.randomUUID() });
    },
    [["thread", conv.id, "messages"], ["conversations"]],
    () => {
      setText("");
      setFile(null);
      setInputKey((k) => k + 1);
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() || file) send.mutate();
  };
  return (
    <form className="reply" onSubmit={submit} noValidate>
      <TextArea label="Reply" name="body" rows={2} value={text} onChange={(e) => setText(e.target.value)} error={send.error} />
      <Field key={inputKey} label="Attachment" name="mediaId" type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} error={send.error} />
      <ErrorNote error={send.error} />
      <button type="submit" disabled={send.isPending}>
        {send.isPending ? "Sending…" : "Send"}
      </button>
    </form>
  );
}
