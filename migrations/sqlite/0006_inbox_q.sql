-- The inbox's contact search (docs/inbox.md): a substring of a conversation's phone or of its
-- contact's name or push name. Two FTS5 indexes with the trigram tokenizer (any substring of
-- 3 or more characters, any case), external content keyed by the rows' rowid, kept in step by
-- triggers inside the writing transaction. The query joins back to the rows for the workspace.
CREATE VIRTUAL TABLE conversations_phone_q USING fts5(phone, content='conversations', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER conversations_phone_q_insert AFTER INSERT ON conversations BEGIN
  INSERT INTO conversations_phone_q(rowid, phone) VALUES (new.rowid, new.phone);
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_q_delete AFTER DELETE ON conversations BEGIN
  INSERT INTO conversations_phone_q(conversations_phone_q, rowid, phone) VALUES ('delete', old.rowid, old.phone);
END;
--> statement-breakpoint
CREATE TRIGGER conversations_phone_q_update AFTER UPDATE OF phone ON conversations BEGIN
  INSERT INTO conversations_phone_q(conversations_phone_q, rowid, phone) VALUES ('delete', old.rowid, old.phone);
  INSERT INTO conversations_phone_q(rowid, phone) VALUES (new.rowid, new.phone);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE contacts_name_q USING fts5(name, push_name, content='contacts', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER contacts_name_q_insert AFTER INSERT ON contacts BEGIN
  INSERT INTO contacts_name_q(rowid, name, push_name) VALUES (new.rowid, new.name, new.push_name);
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_q_delete AFTER DELETE ON contacts BEGIN
  INSERT INTO contacts_name_q(contacts_name_q, rowid, name, push_name) VALUES ('delete', old.rowid, old.name, old.push_name);
END;
--> statement-breakpoint
CREATE TRIGGER contacts_name_q_update AFTER UPDATE OF name, push_name ON contacts BEGIN
  INSERT INTO contacts_name_q(contacts_name_q, rowid, name, push_name) VALUES ('delete', old.rowid, old.name, old.push_name);
  INSERT INTO contacts_name_q(rowid, name, push_name) VALUES (new.rowid, new.name, new.push_name);
END;
--> statement-breakpoint
-- the rows stored before the indexes
INSERT INTO conversations_phone_q(conversations_phone_q) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO contacts_name_q(contacts_name_q) VALUES ('rebuild');
