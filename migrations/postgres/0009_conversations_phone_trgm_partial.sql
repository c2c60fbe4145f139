-- The trigram index of a conversation's phone (the inbox's contact search, docs/inbox.md) kept
-- out of equality reads. pg_trgm's GIN operator class also answers `phone = ...`, and once the
-- table has statistics the planner took it for an inbound group's read of its conversations by
-- phone (`phone = ANY(...)`): a GIN index gathers new entries in a pending list until a vacuum,
-- every conversation update adds to it (the row's new version needs its entries), and a read
-- through the index scans the whole list: 20-60 ms a read at 500 messages a second, where the
-- unique (workspace, session, phone) B-tree answers in a fraction of a millisecond. As a partial
-- index whose condition the search states and the equality reads do not (nor imply: the planner
-- would read `phone <> ''` into `phone = '91...'`, not `length(phone) > 0`), it serves the
-- search only.
DROP INDEX IF EXISTS conversations_phone_trgm_idx;
--> statement-breakpoint
CREATE INDEX conversations_phone_trgm_idx ON conversations USING gin (phone gin_trgm_ops) WHERE length(phone) > 0;
