#!/bin/sh
# Initialises $PGDATA once as the official image does, then runs PostgreSQL in the foreground.
set -e
mkdir -p "$PGDATA" /run/postgresql && chown -R postgres "$PGDATA" /run/postgresql && chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  echo "$POSTGRES_PASSWORD" > /tmp/pw && chown postgres /tmp/pw
  su postgres -c "initdb -D '$PGDATA' -U '$POSTGRES_USER' --pwfile=/tmp/pw --auth=scram-sha-256 $POSTGRES_INITDB_ARGS"
  rm /tmp/pw
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  su postgres -c "pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start"
  [ "${POSTGRES_DB:-$POSTGRES_USER}" = postgres ] || su postgres -c "PGPASSWORD='$POSTGRES_PASSWORD' psql -U '$POSTGRES_USER' -d postgres -c 'CREATE DATABASE \"${POSTGRES_DB:-$POSTGRES_USER}\"'"
  su postgres -c "pg_ctl -D '$PGDATA' -m fast -w stop"
fi
exec su postgres -c "postgres -D '$PGDATA' -c listen_addresses='*'"
