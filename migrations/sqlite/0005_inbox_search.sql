-- The inbox (docs/inbox.md): what drizzle-kit cannot write.
-- 1. conversations.last_direction of conversations that existed before the column.
UPDATE conversations SET last_direction = (SELECT m.direction FROM messages m WHERE m.id = conversations.last_message_id) WHERE last_direction IS NULL;
--> statement-breakpoint
-- 2. Full-text search over message text: an FTS5 index whose content is messages.body (external
-- content, keyed by the messages' rowid), kept in step by triggers inside the writing transaction.
CREATE VIRTUAL TABLE messages_fts USING fts5(body, content='messages', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages WHEN new.body IS NOT NULL BEGIN
  INSERT INTO messages_fts(rowid, body) VALUES (new.rowid, new.body);
END;
--> statement-breakpoint
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.body IS NOT NULL BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body) VALUES ('delete', old.rowid, old.body);
END;
--> statement-breakpoint
CREATE TRIGGER messages_fts_update AFTER UPDATE OF body ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body) SELECT 'delete', old.rowid, old.body WHERE old.body IS NOT NULL;
  INSERT INTO messages_fts(rowid, body) SELECT new.rowid, new.body WHERE new.body IS NOT NULL;
END;
--> statement-breakpoint
-- the messages stored before the index
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
