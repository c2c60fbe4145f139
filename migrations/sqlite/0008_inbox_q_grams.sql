-- The inbox's contact search for terms of 1 or 2 characters (docs/inbox.md), which hold no
-- trigram: two contentless FTS5 indexes whose tokens are the grams of a conversation's phone
-- and of a contact's name and push name (each character and each pair of neighbouring
-- characters, lower case, written in hex so that every gram is one token), keyed by the rows'
-- rowid and kept in step by triggers inside the writing transaction. A search matches the
-- term's token and checks each candidate for the workspace and again with LIKE.
-- q_positions numbers the characters (triggers may not use a recursive WITH).
CREATE TABLE q_positions (n INTEGER PRIMARY KEY);
--> statement-breakpoint
INSERT INTO q_positions (n) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 4096) SELECT n FROM s;
--> statement-breakpoint
CREATE VIRTUAL TABLE conversations_phone_g USING fts5(grams, content='', contentless_delete=1, detail=none);
--> statement-breakpoint
CREATE VIRTUAL TABLE contacts_name_g USING fts5(grams, content='', contentless_delete=1, detail=none);
--> statement-breakpoint
CREATE TRIGGER conversations_phone_g_insert AFTER INSERT ON conversations BEGIN
  INSERT INTO conversations_phone_g (rowid, grams) VALUES (new.rowid, (
    SELECT group_concat(hex(lower(substr(new.phone, p.n, l.k))), ' ') FROM (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p WHERE p.n <= length(new.phone) - l.k + 1));
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_g_delete AFTER DELETE ON conversations BEGIN
  DELETE FROM conversations_phone_g WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_g_update AFTER UPDATE OF phone ON conversations WHEN old.phone IS NOT new.phone BEGIN
  DELETE FROM conversations_phone_g WHERE rowid = old.rowid;
  INSERT INTO conversations_phone_g (rowid, grams) VALUES (new.rowid, (
    SELECT group_concat(hex(lower(substr(new.phone, p.n, l.k))), ' ') FROM (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p WHERE p.n <= length(new.phone) - l.k + 1));
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_g_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_name_g (rowid, grams) VALUES (new.rowid, (
    SELECT group_concat(hex(lower(substr(s.v, p.n, l.k))), ' ')
    FROM (SELECT new.name AS v UNION ALL SELECT new.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
    WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1));
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_g_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_name_g WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_g_update AFTER UPDATE OF name, push_name ON contacts WHEN old.name IS NOT new.name OR old.push_name IS NOT new.push_name BEGIN
  DELETE FROM contacts_name_g WHERE rowid = old.rowid;
  INSERT INTO contacts_name_g (rowid, grams) VALUES (new.rowid, (
    SELECT group_concat(hex(lower(substr(s.v, p.n, l.k))), ' ')
    FROM (SELECT new.name AS v UNION ALL SELECT new.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
    WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1));
END;
--> statement-breakpoint
-- the rows stored before the indexes
INSERT INTO conversations_phone_g (rowid, grams)
SELECT c.rowid, (SELECT group_concat(hex(lower(substr(c.phone, p.n, l.k))), ' ') FROM (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p WHERE p.n <= length(c.phone) - l.k + 1)
FROM conversations c;
--> statement-breakpoint
INSERT INTO contacts_name_g (rowid, grams)
SELECT k.rowid, (SELECT group_concat(hex(lower(substr(s.v, p.n, l.k))), ' ')
                 FROM (SELECT k.name AS v UNION ALL SELECT k.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
                 WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1)
FROM contacts k;
