# syntax=docker/dockerfile:1
# Build: one executable with migrations and docs assets embedded.
# npm brings Bun itself (a devDependency), as on every other machine.
FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
# the lock file is written by npm 11; the npm 10 of node:20 images refuses it ("not in sync")
RUN npm install -g --no-audit --no-fund npm@11 && npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Run: a small Debian with the binary, as a non-root user, data on a volume.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home /data parley && mkdir -p /data && chown parley /data
COPY --from=build /src/dist/parley /usr/local/bin/parley
USER parley
VOLUME ["/data"]
ENV PARLEY_DATA_DIR=/data PARLEY_HOST=0.0.0.0 PARLEY_PORT=3000 PARLEY_LOG_FORMAT=json
EXPOSE 3000
# healthy = GET /ready answers 200 (the database answers and is migrated); the image has no curl,
# so the binary asks, at the URL the server wrote into /data/parley.url
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["/usr/local/bin/parley", "health", "--timeout", "3000"]
ENTRYPOINT ["/usr/local/bin/parley"]
CMD ["serve"]
