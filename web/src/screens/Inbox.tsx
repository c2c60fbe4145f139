import { useInfiniteQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useParams } from "wouter";
import { api, qs } from "../api/client.ts";
import type { Conversation } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { useAuth } from "../ui/hooks.ts";
import { Thread } from "./Thread.tsx";
import { FirstSteps } from "../ui/FirstSteps.tsx";
import { can } from "../api/roles.ts";
import { filterParams, Filters, NO_FILTER, QuickFilters, type InboxFilter } from "./inbox/Filters.tsx";
import { ConversationRow } from "./inbox/ConversationRow.tsx";
import { SearchResults } from "./inbox/SearchResults.tsx";
import { NotifyButton } from "../ui/notify.tsx";

// the filter outlives the screen: back from another screen, the list is as it was left
let kept: InboxFilter = NO_FILTER;

/** Inbox: filtered conversations (live), message search, and the open thread beside them. */
export function Inbox() {
  const { id } = useParams<{ id?: string }>();
  const { claims } = useAuth();
  const [filter, setFilterState] = useState<InboxFilter>(kept);
  const setFilter = (f: InboxFilter) => setFilterState((kept = f));
  const [searchText, setSearchText] = useState("");
  const [search, setSearch] = useState("");
  const params = { limit: 50, ...filterParams(filter) };
  // pages of 50, most recent first; live events refetch the pages already shown
  const list = useInfiniteQuery({
    queryKey: ["conversations", params],
    queryFn: ({ pageParam }) => api<Conversation[]>("GET", `/api/v1/inbox/conversations${qs({ ...params, page: pageParam })}`),
    initialPageParam: 1,
    getNextPageParam: (last, _all, page) => (page < (last.pagination?.totalPages ?? 1) ? page + 1 : undefined),
    enabled: !search,
  });
  const conversations = list.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = JSON.stringify(filter) !== JSON.stringify(NO_FILTER);
  const more = !!(filter.status || filter.assignee || filter.label || filter.sessionId);
  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    setSearch(searchText.trim());
  };

  return (
    <section className={id ? "inbox has-thread" : "inbox"}>
      <div className="conversations">
        <div className="inbox-title">
          <h1>Inbox</h1>
          <NotifyButton />
        </div>
        <form className="search-form" role="search" onSubmit={submitSearch}>
          <label htmlFor="message-search">Search messages</label>
          <div className="search-row">
            <input id="message-search" type="search" value={searchText} onChange={(e) => setSearchText(e.target.value)} placeholder="words in a message" />
            <button type="submit">Search</button>
          </div>
        </form>
        {search ? (
          <>
            <p className="search-head">
              Messages with “{search}”{" "}
              <button type="button" className="link" onClick={() => (setSearch(""), setSearchText(""))}>
                Back to conversations
              </button>
            </p>
            <SearchResults q={search} />
          </>
        ) : (
          <>
            <QuickFilters value={filter} onChange={setFilter} />
            <details className="filters" open={more || undefined}>
              <summary>More filters{more ? " (on)" : ""}</summary>
              <Filters value={filter} onChange={setFilter} />
            </details>
            {filtered && (
              <button type="button" className="link" onClick={() => setFilter(NO_FILTER)}>
                Clear filters
              </button>
            )}
            <ErrorNote error={list.error} />
            {list.isSuccess && conversations.length === 0 && (
              <p className="empty">{filtered ? "No conversation matches these filters." : "No conversations yet. They start with the first message either way."}</p>
            )}
            <ul className="conv-list" aria-label="Conversations">
              {conversations.map((c) => (
                <li key={c.id}>
                  <ConversationRow c={c} active={c.id === id} />
                </li>
              ))}
            </ul>
            {list.hasNextPage && (
              <button type="button" className="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                Show more conversations
              </button>
            )}
          </>
        )}
      </div>
      <div className="thread-pane">
        {id ? (
          <Thread key={id} id={id} />
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
