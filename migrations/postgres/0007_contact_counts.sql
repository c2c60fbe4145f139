-- A workspace's number of contacts and of opted-out contacts (docs/no-stalls.md), kept in step
-- by triggers inside the writing transaction: the contacts quota and a contact list's total read
-- one row instead of counting the workspace. Derived data: not in the tables' declarations (a
-- copy of the data between engines rebuilds it through the triggers as contacts are inserted).
CREATE TABLE contact_counts (
  workspace_id text PRIMARY KEY NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  total bigint DEFAULT 0 NOT NULL,
  opted_out bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO contact_counts (workspace_id, total, opted_out)
  SELECT workspace_id, count(*), coalesce(sum(opted_out), 0) FROM contacts GROUP BY workspace_id;
--> statement-breakpoint
CREATE FUNCTION contact_counts_step() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_counts (workspace_id, total, opted_out) VALUES (NEW.workspace_id, 1, NEW.opted_out)
      ON CONFLICT (workspace_id) DO UPDATE SET total = contact_counts.total + 1, opted_out = contact_counts.opted_out + EXCLUDED.opted_out;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE contact_counts SET total = total - 1, opted_out = opted_out - OLD.opted_out WHERE workspace_id = OLD.workspace_id;
  ELSIF NEW.opted_out IS DISTINCT FROM OLD.opted_out THEN
    UPDATE contact_counts SET opted_out = opted_out + NEW.opted_out - OLD.opted_out WHERE workspace_id = NEW.workspace_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER contact_counts_step AFTER INSERT OR DELETE OR UPDATE OF opted_out ON contacts
  FOR EACH ROW EXECUTE FUNCTION contact_counts_step();
