-- The inbox's contact search for terms of 1 or 2 characters (docs/inbox.md), which hold no
-- trigram: every character and every pair of neighbouring characters (lower case) of a
-- conversation's phone and of a contact's name and push name, with the workspace (its rowid)
-- and the row (its rowid). Kept in step by triggers inside the writing transaction; a search
-- reads the term's rows for the workspace and checks each candidate again with LIKE.
-- q_positions numbers the characters (triggers may not use a recursive WITH).
CREATE TABLE q_positions (n INTEGER PRIMARY KEY);
--> statement-breakpoint
INSERT INTO q_positions (n) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 4096) SELECT n FROM s;
--> statement-breakpoint
CREATE TABLE conversations_phone_grams (ws INTEGER NOT NULL, gram TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (ws, gram, rid)) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE contacts_name_grams (ws INTEGER NOT NULL, gram TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (ws, gram, rid)) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_grams_insert AFTER INSERT ON conversations BEGIN
  INSERT OR IGNORE INTO conversations_phone_grams (ws, gram, rid)
  SELECT w.rowid, lower(substr(new.phone, p.n, l.k)), new.rowid
  FROM workspaces w, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
  WHERE w.id = new.workspace_id AND p.n <= length(new.phone) - l.k + 1;
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_grams_delete AFTER DELETE ON conversations BEGIN
  DELETE FROM conversations_phone_grams WHERE rid = old.rowid AND ws = (SELECT rowid FROM workspaces WHERE id = old.workspace_id)
    AND gram IN (SELECT lower(substr(old.phone, p.n, l.k)) FROM (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p WHERE p.n <= length(old.phone) - l.k + 1);
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_grams_update AFTER UPDATE OF phone ON conversations WHEN old.phone IS NOT new.phone BEGIN
  DELETE FROM conversations_phone_grams WHERE rid = old.rowid AND ws = (SELECT rowid FROM workspaces WHERE id = old.workspace_id)
    AND gram IN (SELECT lower(substr(old.phone, p.n, l.k)) FROM (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p WHERE p.n <= length(old.phone) - l.k + 1);
  INSERT OR IGNORE INTO conversations_phone_grams (ws, gram, rid)
  SELECT w.rowid, lower(substr(new.phone, p.n, l.k)), new.rowid
  FROM workspaces w, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
  WHERE w.id = new.workspace_id AND p.n <= length(new.phone) - l.k + 1;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_grams_insert AFTER INSERT ON contacts BEGIN
  INSERT OR IGNORE INTO contacts_name_grams (ws, gram, rid)
  SELECT w.rowid, lower(substr(s.v, p.n, l.k)), new.rowid
  FROM workspaces w, (SELECT new.name AS v UNION ALL SELECT new.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
  WHERE w.id = new.workspace_id AND s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_grams_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_name_grams WHERE rid = old.rowid AND ws = (SELECT rowid FROM workspaces WHERE id = old.workspace_id)
    AND gram IN (SELECT lower(substr(s.v, p.n, l.k)) FROM (SELECT old.name AS v UNION ALL SELECT old.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
                 WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1);
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_grams_update AFTER UPDATE OF name, push_name ON contacts WHEN old.name IS NOT new.name OR old.push_name IS NOT new.push_name BEGIN
  DELETE FROM contacts_name_grams WHERE rid = old.rowid AND ws = (SELECT rowid FROM workspaces WHERE id = old.workspace_id)
    AND gram IN (SELECT lower(substr(s.v, p.n, l.k)) FROM (SELECT old.name AS v UNION ALL SELECT old.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
                 WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1);
  INSERT OR IGNORE INTO contacts_name_grams (ws, gram, rid)
  SELECT w.rowid, lower(substr(s.v, p.n, l.k)), new.rowid
  FROM workspaces w, (SELECT new.name AS v UNION ALL SELECT new.push_name) s, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
  WHERE w.id = new.workspace_id AND s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1;
END;
--> statement-breakpoint
-- a workspace's rows go with it (its contacts' and conversations' own triggers, run by the
-- cascade after the workspace row is gone, no longer find its rowid)
CREATE TRIGGER workspaces_q_grams_delete BEFORE DELETE ON workspaces BEGIN
  DELETE FROM conversations_phone_grams WHERE ws = old.rowid;
  DELETE FROM contacts_name_grams WHERE ws = old.rowid;
END;
--> statement-breakpoint
-- the rows stored before the tables
INSERT OR IGNORE INTO conversations_phone_grams (ws, gram, rid)
SELECT w.rowid, lower(substr(c.phone, p.n, l.k)), c.rowid
FROM conversations c JOIN workspaces w ON w.id = c.workspace_id, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
WHERE p.n <= length(c.phone) - l.k + 1;
--> statement-breakpoint
INSERT OR IGNORE INTO contacts_name_grams (ws, gram, rid)
SELECT w.rowid, lower(substr(s.v, p.n, l.k)), s.rid
FROM (SELECT rowid AS rid, workspace_id, name AS v FROM contacts UNION ALL SELECT rowid, workspace_id, push_name FROM contacts) s
JOIN workspaces w ON w.id = s.workspace_id, (SELECT 1 AS k UNION ALL SELECT 2) l, q_positions p
WHERE s.v IS NOT NULL AND p.n <= length(s.v) - l.k + 1;
