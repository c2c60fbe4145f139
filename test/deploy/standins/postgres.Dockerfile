# Stand-in for postgres:16: Debian's PostgreSQL with the official image's environment
# (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, POSTGRES_INITDB_ARGS) and data directory.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends postgresql && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
