-- The message search index (docs/inbox.md): its rows for new messages are written by the code
-- that inserts them (src/modules/messages/fts-repo.ts), in the same transaction, instead of by a
-- trigger per row. FTS5 writes its pending terms at every savepoint, and a trigger's statement
-- opens one; one statement for a group of messages writes them once. Deletes and edits of the
-- text (rare) stay with their triggers.
DROP TRIGGER IF EXISTS messages_fts_insert;
