-- A workspace's number of contacts and of opted-out contacts (docs/no-stalls.md), kept in step
-- by triggers inside the writing transaction: the contacts quota and a contact list's total read
-- one row instead of counting the workspace. Derived data: not in the tables' declarations (a
-- copy of the data between engines rebuilds it through the triggers as contacts are inserted).
CREATE TABLE contact_counts (
  workspace_id text PRIMARY KEY NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  total integer DEFAULT 0 NOT NULL,
  opted_out integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO contact_counts (workspace_id, total, opted_out)
  SELECT workspace_id, count(*), coalesce(sum(opted_out), 0) FROM contacts GROUP BY workspace_id;
--> statement-breakpoint
CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contact_counts (workspace_id, total, opted_out) VALUES (new.workspace_id, 1, new.opted_out)
    ON CONFLICT (workspace_id) DO UPDATE SET total = total + 1, opted_out = opted_out + excluded.opted_out;
END;
--> statement-breakpoint
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
  UPDATE contact_counts SET total = total - 1, opted_out = opted_out - old.opted_out WHERE workspace_id = old.workspace_id;
END;
--> statement-breakpoint
CREATE TRIGGER contact_counts_opt AFTER UPDATE OF opted_out ON contacts WHEN old.opted_out <> new.opted_out BEGIN
  UPDATE contact_counts SET opted_out = opted_out + new.opted_out - old.opted_out WHERE workspace_id = new.workspace_id;
END;
