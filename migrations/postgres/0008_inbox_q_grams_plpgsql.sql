-- The grams of the inbox's short-term search (docs/inbox.md) computed by a loop instead of a
-- SQL query. The function sits in the expressions of three GIN indexes (a conversation's phone,
-- a contact's name and push name), so PostgreSQL evaluates it for every new row version of
-- those tables: each inbound message's contact touch and conversation update. As a SQL function
-- with a query in its body it was planned again at each of those evaluations (about 0.1 ms
-- each, most of the cost of those two writes); PL/pgSQL keeps its plan for the session.
-- The same set of grams comes out (each character and each pair of neighbouring characters,
-- lower case; a gram may now be listed twice, which neither a GIN index nor `@>` sees), so the
-- indexes built with the previous body stay valid and are not rebuilt.
CREATE OR REPLACE FUNCTION inbox_q_grams(s text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  l text := lower(s);
  n int := length(s);
  grams text[] := '{}';
BEGIN
  IF l IS NULL THEN
    RETURN grams;
  END IF;
  FOR i IN 1..n LOOP
    grams := grams || substr(l, i, 1);
    IF i < n THEN
      grams := grams || substr(l, i, 2);
    END IF;
  END LOOP;
  RETURN grams;
END $$;
