import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { api, qs } from "../api/client.ts";
import type { Conversation } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Select } from "../ui/Field.tsx";
import { contactName, useAuth } from "../ui/hooks.ts";
import { Thread } from "./Thread.tsx";
import { FirstSteps } from "../ui/FirstSteps.tsx";
import { can } from "../api/roles.ts";

/** Inbox: conversations with unread counts (live), and the open thread beside them. */
export function Inbox() {
  const { id } = useParams<{ id?: string }>();
  const { claims } = useAuth();
  const [filter, setFilter] = useState("all");
  const params = { limit: 50, unread: filter === "unread" ? "true" : undefined, assigneeId: filter === "mine" ? claims?.sub : undefined };
  // pages of 50, most recent first; live events refetch the pages already shown
  const list = useInfiniteQuery({
    queryKey: ["conversations", params],
    queryFn: ({ pageParam }) => api<Conversation[]>("GET", `/api/v1/inbox/conversations${qs({ ...params, page: pageParam })}`),
    initialPageParam: 1,
    getNextPageParam: (last, _all, page) => (page < (last.pagination?.totalPages ?? 1) ? page + 1 : undefined),
  });
  const conversations = list.data?.pages.flatMap((p) => p.data) ?? [];

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
        {list.isSuccess && conversations.length === 0 && <p className="empty">No conversations yet. They start with the first message either way.</p>}
        <ul className="conv-list" aria-label="Conversations">
          {conversations.map((c) => (
            <li key={c.id}>
              <Link href={`/inbox/${c.id}`} className={c.id === id ? "conv active" : "conv"} aria-current={c.id === id ? "true" : undefined}>
                <span className="conv-name">
                  {contactName(c)}
                  {c.groupId && <span className="badge group">group</span>}
                </span>
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
        {list.hasNextPage && (
          <button type="button" className="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            Show more conversations
          </button>
        )}
      </div>
      <div className="thread-pane">
        {id ? (
          <Thread id={id} />
        ) : (
          <>
            {can(claims?.role, "manage") && <FirstSteps />}
            <p className="empty wide">Choose a conversation.</p>
          </>
        )}
      </div>
    </section>
  );
}
