import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link, useSearch } from "wouter";
import { api, get, post, put, qs } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Conversation, Member, Message } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Select } from "../ui/Field.tsx";
import { contactName, fmtAddress, fmtPhone, useAction, useAuth } from "../ui/hooks.ts";
import { sessionLabel } from "./inbox/when.ts";
import { Composer } from "./thread/Composer.tsx";
import { ContactPanel } from "./thread/ContactPanel.tsx";
import { Controls } from "./thread/Controls.tsx";
import { MessageItem } from "./thread/MessageItem.tsx";

/** One conversation: messages and notes live, the number it belongs to, status, labels, reply, assign, the contact beside it. */
export function Thread({ id }: { id: string }) {
  const { claims } = useAuth();
  const messaging = can(claims?.role, "messaging");
  const hit = new URLSearchParams(useSearch()).get("hit");
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
  const hitLoaded = !!hit && ordered.some((m) => m.id === hit);
  // opened at a search hit: older pages load until it is there, then it is scrolled to
  useEffect(() => {
    if (hit && msgs.isSuccess && !hitLoaded && msgs.hasNextPage && !msgs.isFetchingNextPage) void msgs.fetchNextPage();
  }, [hit, hitLoaded, msgs.isSuccess, msgs.hasNextPage, msgs.isFetchingNextPage]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (hitLoaded) document.getElementById(`m-${hit}`)?.scrollIntoView({ block: "center" });
  }, [hitLoaded, hit]);
  // otherwise follow new messages, not the older pages loaded above
  const newest = ordered[ordered.length - 1]?.id;
  useEffect(() => {
    if (!hit) endRef.current?.scrollIntoView({ block: "end" });
  }, [newest, hit]);
  const c = conv.data;

  return (
    <div className="thread-wrap">
      <article className="thread" aria-label="Conversation">
        <header className="thread-head">
          <Link href="/inbox" className="back">
            ← All conversations
          </Link>
          <h2>{c ? contactName(c) : "…"}</h2>
          {c && !c.groupId && contactName(c) !== fmtPhone(c.phone) && <p className="muted">{fmtAddress(c.phone)}</p>}
          {c?.session !== undefined && (
            <p className="via" data-testid="via">
              On <strong>{sessionLabel(c.session) || "a deleted session"}</strong>: replies go from this number
            </p>
          )}
          {c?.groupId && (
            <details className="members">
              <summary>Group chat · {c.participants?.length ?? 0} members</summary>
              <ul aria-label="Group members">
                {c.participants?.map((p) => <li key={p}>{fmtAddress(p)}</li>)}
              </ul>
            </details>
          )}
          {c && messaging && (
            <Select label="Assigned to" name="userId" value={c.assignee?.id ?? ""} onChange={(e) => assign.mutate(e.target.value || null)} error={assign.error}>
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
          {c && !messaging && (
            <p>
              Assigned to {c.assignee?.name ?? "nobody"} · {c.status ?? "open"}
              {c.labels?.length ? ` · ${c.labels.join(", ")}` : ""}
            </p>
          )}
          {c && messaging && <Controls c={c} />}
        </header>
        <ErrorNote error={msgs.error ?? assign.error} />
        {msgs.hasNextPage && (
          <button type="button" className="secondary" onClick={() => void msgs.fetchNextPage()} disabled={msgs.isFetchingNextPage}>
            Show older messages
          </button>
        )}
        <ol className="messages" aria-live="polite" aria-label="Messages">
          {c && ordered.map((m) => <MessageItem key={m.id} m={m} conv={c} messaging={messaging} hit={m.id === hit} />)}
        </ol>
        <div ref={endRef} />
        {c && messaging && <Composer conv={c} />}
      </article>
      {c && <ContactPanel c={c} />}
    </div>
  );
}
