-- The message search index's segments are merged by its follower in small steps, each a
-- transaction of its own (src/modules/messages/fts-repo.ts), instead of by FTS5 inside the COMMIT
-- of whichever write crossed its work unit, which merged 64 pages per level of the index at once
-- and held the event loop for milliseconds under a send load. FTS5's crisis merge (16 segments on
-- a level) stays as the bound when nothing merges.
INSERT INTO messages_fts(messages_fts, rank) VALUES ('automerge', 0);
