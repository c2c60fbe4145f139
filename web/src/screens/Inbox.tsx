import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { get, qs } from "../api/client.ts";
import type { Conversation } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Select } from "../ui/Field.tsx";
import { fmtPhone, useAuth } from "../ui/hooks.ts";
import { Thread } from "./Thread.tsx";

export const contactName = (c: Conversation) => c.contact?.name ?? c.contact?.pushName ?? fmtPhone(c.phone);

/** Inbox: conversations with unread counts (live), and the open thread beside them. */
export function Inbox() {
  const { id } = useParams<{ id?: string }>();
  const { claims } = useAuth();
  const [filter, setFilter] = useState("all");
  const params = { limit: 50, unread: filter === "unread" ? "true" : undefined, assigneeId: filter === "mine" ? claims?.sub : undefined };
  const list = useQuery({
    queryKey: ["conversations", params],
    queryFn: () => get<Conversation[]>(`/api/v1/inbox/conversations${qs(params)}`),
  });

  return (
    <section className={id ? "inbox has-thread" : "inbox"}>
      <div className="conversations">
        <h1>Inbox</h1>
        <Select label="Show" name="filter" value={filter} onChange={(e) => setFilter(e.target.value)}>
          <option value="all">All conversations</option>
          <option value="unread">Unread</option>
          <option value="mine">Assigned to me</option>
        </Select>
        <ErrorNote error={list.error} />
        {list.data?.length === 0 && <p className="empty">No conversations yet. They start with the first message either way.</p>}
        <ul className="conv-list" aria-label="Conversations">
          {list.data?.map((c) => (
            <li key={c.id}>
              <Link href={`/inbox/${c.id}`} className={c.id === id ? "conv active" : "conv"} aria-current={c.id === id ? "true" : undefined}>
                <span className="conv-name">{contactName(c)}</span>
                {c.unreadCount > 0 && (
                  <span className="unread" aria-label={`${c.unreadCount} unread`}>
                    {c.unreadCount}
                  </span>
                )}
                <span className="conv-last">{c.lastMessage?.body || (c.lastMessage ? `[${c.lastMessage.type}]` : "")}</span>
              </Link>
            </li>
          ))}
        </ul>
      </div>
      <div className="thread-pane">{id ? <Thread id={id} /> : <p className="empty wide">Choose a conversation.</p>}</div>
    </section>
  );
}
