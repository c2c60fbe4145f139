# Stand-in for caddy:2: Debian's Caddy 2, run as the official image runs it.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends caddy ca-certificates && rm -rf /var/lib/apt/lists/*
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
