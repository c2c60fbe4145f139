#!/usr/bin/env bash
# Starts a private PostgreSQL for the test run on a loopback port, from Debian's packages
# (installed when missing). Prints the admin URL on stdout; the server runs until `stop`.
# Usage: .ci/postgres.sh start DIR PORT   |   .ci/postgres.sh stop DIR
set -euo pipefail
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ "$cmd" = stop ]; then
  [ -n "$bin" ] && su postgres -c "$bin/pg_ctl -D '$dir/data' -m fast stop" >/dev/null 2>&1 || true
  exit 0
fi
port=$3
if [ -z "$bin" ]; then
  (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) >&2
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
mkdir -p "$dir"
chown postgres "$dir"
# C collation: text sorts byte by byte, as on SQLite; fsync off: a test server, thrown away after the run
su postgres -c "$bin/initdb -D '$dir/data' -U parley --auth=trust -E UTF8 --locale=C" >&2
su postgres -c "$bin/pg_ctl -D '$dir/data' -l '$dir/log' -w -o '-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400' start" >&2
echo "postgres://parley@127.0.0.1:$port/postgres"
