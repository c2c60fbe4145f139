-- The inbox's contact search for terms of 1 or 2 characters (docs/inbox.md), which pg_trgm's
-- indexes do not serve: the set of a text's grams (each character and each pair of
-- neighbouring characters, lower case) and a GIN index of it for a conversation's phone and a
-- contact's name and push name. PostgreSQL keeps the indexes in step with the rows; a search
-- reads the term's entry (`inbox_q_grams(x) @> ARRAY[lower(term)]`) and checks each candidate
-- again with ILIKE.
CREATE FUNCTION inbox_q_grams(s text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT g), '{}') FROM (
    SELECT substr(lower(s), i, 1) FROM generate_series(1, length(s)) i
    UNION ALL SELECT substr(lower(s), i, 2) FROM generate_series(1, length(s) - 1) i
  ) x(g)
$$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS conversations_phone_grams_idx ON conversations USING gin (inbox_q_grams(phone));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS contacts_name_grams_idx ON contacts USING gin (inbox_q_grams(name));
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS contacts_push_name_grams_idx ON contacts USING gin (inbox_q_grams(push_name));
