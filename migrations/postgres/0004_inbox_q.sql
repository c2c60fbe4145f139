-- The inbox's contact search (docs/inbox.md): a substring of a conversation's phone or of its
-- contact's name or push name, matched with ILIKE '%term%'. pg_trgm's GIN indexes serve such a
-- pattern for terms of 3 or more characters; they are updated with the row, in the writing
-- transaction. pg_trgm is a trusted extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS conversations_phone_trgm_idx ON conversations USING gin (phone gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS contacts_name_trgm_idx ON contacts USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS contacts_push_name_trgm_idx ON contacts USING gin (push_name gin_trgm_ops);
