-- The inbox's contact search for terms of 1 or 2 characters (docs/inbox.md), which pg_trgm's
-- indexes do not serve: every character and every pair of neighbouring characters (lower case)
-- of a conversation's phone and of a contact's name and push name, with the workspace and the
-- row. Kept in step by triggers inside the writing transaction; a search reads the term's rows
-- for the workspace and checks each candidate again with ILIKE.
CREATE FUNCTION inbox_q_grams(s text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT substr(lower(s), i, 1) FROM generate_series(1, length(s)) i
  UNION SELECT substr(lower(s), i, 2) FROM generate_series(1, length(s) - 1) i
$$;
--> statement-breakpoint
CREATE TABLE conversations_phone_grams (workspace_id text NOT NULL, gram text NOT NULL, conversation_id text NOT NULL, PRIMARY KEY (workspace_id, gram, conversation_id));
--> statement-breakpoint
CREATE TABLE contacts_name_grams (workspace_id text NOT NULL, gram text NOT NULL, contact_id text NOT NULL, PRIMARY KEY (workspace_id, gram, contact_id));
--> statement-breakpoint
CREATE FUNCTION conversations_phone_grams_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM conversations_phone_grams WHERE workspace_id = OLD.workspace_id AND conversation_id = OLD.id AND gram IN (SELECT inbox_q_grams(OLD.phone));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO conversations_phone_grams (workspace_id, gram, conversation_id)
    SELECT NEW.workspace_id, g, NEW.id FROM inbox_q_grams(NEW.phone) g ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_grams_insert_delete AFTER INSERT OR DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION conversations_phone_grams_sync();
--> statement-breakpoint
CREATE TRIGGER conversations_phone_grams_update AFTER UPDATE OF phone ON conversations FOR EACH ROW WHEN (OLD.phone IS DISTINCT FROM NEW.phone) EXECUTE FUNCTION conversations_phone_grams_sync();
--> statement-breakpoint
CREATE FUNCTION contacts_name_grams_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM contacts_name_grams WHERE workspace_id = OLD.workspace_id AND contact_id = OLD.id
      AND gram IN (SELECT inbox_q_grams(OLD.name) UNION SELECT inbox_q_grams(OLD.push_name));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO contacts_name_grams (workspace_id, gram, contact_id)
    SELECT NEW.workspace_id, g, NEW.id FROM (SELECT inbox_q_grams(NEW.name) UNION SELECT inbox_q_grams(NEW.push_name)) x(g) WHERE g IS NOT NULL ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER contacts_name_grams_insert_delete AFTER INSERT OR DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION contacts_name_grams_sync();
--> statement-breakpoint
CREATE TRIGGER contacts_name_grams_update AFTER UPDATE OF name, push_name ON contacts FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.push_name IS DISTINCT FROM NEW.push_name) EXECUTE FUNCTION contacts_name_grams_sync();
--> statement-breakpoint
-- the rows stored before the tables
INSERT INTO conversations_phone_grams (workspace_id, gram, conversation_id)
SELECT c.workspace_id, g, c.id FROM conversations c, inbox_q_grams(c.phone) g ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO contacts_name_grams (workspace_id, gram, contact_id)
SELECT k.workspace_id, g, k.id FROM contacts k, LATERAL (SELECT inbox_q_grams(k.name) UNION SELECT inbox_q_grams(k.push_name)) x(g) WHERE g IS NOT NULL ON CONFLICT DO NOTHING;
