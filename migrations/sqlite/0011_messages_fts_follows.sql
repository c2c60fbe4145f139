-- The message search index follows the messages table instead of being written by each insert
-- (docs/inbox.md, src/modules/messages/fts-repo.ts): `messages_fts_mark.indexed_to` is the rowid
-- up to which every message is in the index; messages above it are not yet, and a background
-- follower (and every search, first) adds them in batches of hundreds. A message's delete and
-- text edit change the index only for a message it holds. Deleting the message at the mark moves
-- the mark down to the next message below, so a rowid SQLite hands out again later (the largest
-- plus one) is always above the mark.
CREATE TABLE messages_fts_mark (
  id integer PRIMARY KEY NOT NULL CHECK (id = 1),
  indexed_to integer NOT NULL
);
--> statement-breakpoint
-- everything stored so far was indexed by the code that inserted it
INSERT INTO messages_fts_mark (id, indexed_to) VALUES (1, coalesce((SELECT max(rowid) FROM messages), 0));
--> statement-breakpoint
DROP TRIGGER IF EXISTS messages_fts_delete;
--> statement-breakpoint
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages WHEN old.rowid <= (SELECT indexed_to FROM messages_fts_mark) BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body) SELECT 'delete', old.rowid, old.body WHERE old.body IS NOT NULL;
  UPDATE messages_fts_mark SET indexed_to = coalesce((SELECT max(rowid) FROM messages WHERE rowid < old.rowid), 0) WHERE indexed_to = old.rowid;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS messages_fts_update;
--> statement-breakpoint
CREATE TRIGGER messages_fts_update AFTER UPDATE OF body ON messages WHEN old.rowid <= (SELECT indexed_to FROM messages_fts_mark) BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, body) SELECT 'delete', old.rowid, old.body WHERE old.body IS NOT NULL;
  INSERT INTO messages_fts(rowid, body) SELECT new.rowid, new.body WHERE new.body IS NOT NULL;
END;
