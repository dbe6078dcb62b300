# One image for the web server (default command), the indexer and the admin CLI, all compiled JavaScript (no
# TypeScript compiler at run time):
#   docker run IMAGE                                   web server on :3000
#   docker run IMAGE node build/node/indexer.js        the indexer
#   docker run -it IMAGE spooks-admin --help           the CLI
#   docker run IMAGE node build/node/simulated-ord.js  trials only: a simulated ord server (compose profile "simulated")
# One HEALTHCHECK knows which it is (SPOOKS_ROLE, else the command): web = GET /api/live; indexer = its /health
# on the private operations port (METRICS_PORT, 9464 here, loopback unless METRICS_HOST says otherwise): an
# ownership pass applied within INDEXER_STALE_AFTER_S. Runs with `--read-only`: only /data and /uploads are
# written (mount volumes there). Each program applies pending migrations at start as MIGRATE_DATABASE_URL's role (the
# owner) and then runs as DATABASE_URL's, which owns nothing (docs/operations.md, "Database roles").
# Stages: build (every dependency, `npm run build`: build/client, build/server, build/node), production
# dependencies (`npm ci --omit=dev`, then what production never reads removed), node-runtime (the base image
# without what only installs or compiles: npm, corepack, yarn, C headers, apt's downloaded packages, docs; plus
# tini as PID 1 so SIGTERM and Ctrl+C reach node), runtime (that, flattened into one layer, then the app, user
# `node`). Plain Dockerfile syntax, no cache mounts: builds with buildx, Docker's built-in BuildKit and the
# legacy builder, with no registry but the base image's.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
# The npm package.json names (packageManager), so `npm ci` reads the lock file and allowScripts as CI does.
RUN npm install --global npm@11.19.1 && npm --version
COPY package.json package-lock.json ./
COPY scripts/check-node.cjs scripts/

FROM base AS build
RUN npm ci
COPY . .
# runtime-files.txt: the files of node_modules the compiled programs and the server build read (traced).
RUN npm run build \
 && node --import tsx scripts/runtime-files.ts > runtime-files.unsorted \
 && LC_ALL=C sort runtime-files.unsorted > runtime-files.txt && test -s runtime-files.txt

FROM base AS production-deps
COPY --from=build /app/runtime-files.txt ./
# Every other file goes: dev tools the programs import only in development (none is installed here), other
# builds of a package (CommonJS beside ESM), PGlite's extensions, date-fns' locales, types, source maps, docs.
RUN npm ci --omit=dev \
 && find node_modules -type f | LC_ALL=C sort | LC_ALL=C comm -23 - runtime-files.txt | tr '\n' '\0' | xargs -0 rm -f \
 && rm -rf node_modules/.bin && find node_modules -type d -empty -delete \
 && npm cache clean --force && rm -rf /root/.npm

# Removing files in a layer above the base would not make the image smaller: they are removed here and the
# result is copied into an empty image as one layer (about 25 MB less on node:24-bookworm-slim). That layer
# changes only when the base image does, so on a builder that keeps its cache an upgrade adds only the app's
# layers. Nothing in the image runs npm: `spooks-admin` is linked onto PATH.
FROM ${NODE_IMAGE} AS node-runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb /var/cache/debconf/*-old \
 && rm -rf /usr/local/lib/node_modules /usr/local/include/node /usr/local/share/doc /usr/local/share/man /opt/yarn-* \
 && rm -f /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
 && find /usr/share/doc -mindepth 2 ! -name copyright ! -type d -delete \
 && rm -rf /usr/share/man/* /usr/share/info/* /usr/share/locale/* \
 && mkdir -p /data /uploads \
 && chown node:node /data /uploads \
 && node --version

FROM scratch AS runtime
COPY --from=node-runtime / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /app
# METRICS_PORT: /metrics and the indexer's /health on their own port, never the public one.
# NODE_COMPILE_CACHE: V8's code cache of the compiled programs, made at build time (read-only at run time).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    METRICS_PORT=9464 \
    DATA_DIR=/data \
    UPLOAD_DIR=/uploads \
    NODE_COMPILE_CACHE=/app/.compile-cache
COPY --from=production-deps /app/node_modules ./node_modules
COPY package.json ./
COPY db/migrations ./db/migrations
COPY cli/bin ./cli/bin
COPY --from=build /app/build ./build
# The CLI and the health check run once (nothing listens: the probe's "unhealthy" is expected) to fill the cache.
RUN ln -s /app/cli/bin/spooks-admin.js /usr/local/bin/spooks-admin \
 && spooks-admin --help >/dev/null \
 && { node build/node/healthcheck.cjs web 2>/dev/null || true; } \
 && test -d /app/.compile-cache
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=6s --start-period=60s --retries=3 CMD ["node", "build/node/healthcheck.cjs"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "build/node/start.js", "--no-indexer"]
