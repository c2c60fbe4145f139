-- The inbox (docs/inbox.md): what drizzle-kit cannot write.
-- 1. conversations.last_direction of conversations that existed before the column.
UPDATE conversations c SET last_direction = m.direction FROM messages m WHERE m.id = c.last_message_id AND c.last_direction IS NULL;
--> statement-breakpoint
-- 2. Full-text search over message text: a GIN index on the text's tsvector (the 'simple'
-- configuration: lower case, no stemming, like SQLite's unicode61). The index is updated with
-- the row, in the writing transaction; queries repeat the expression to use it.
CREATE INDEX messages_body_search_idx ON messages USING gin (to_tsvector('simple'::regconfig, coalesce(body, '')));
