# syntax=docker/dockerfile:1
# One image for the web server (default command), the indexer and the admin CLI:
#   docker run IMAGE                                          web server on :3000
#   docker run IMAGE node --import tsx indexer/main.ts       the indexer
#   docker run -it IMAGE spooks-admin --help                  the CLI
# Build stage: every dependency, `npm run build`. Runtime: production dependencies (tsx among them: the
# server runs its TypeScript through it), the sources and the build, as the unprivileged user `node`, under
# tini so SIGTERM and Ctrl+C reach node and zombies are reaped.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false
# The npm package.json names (packageManager), so `npm ci` reads the lock file exactly as CI does.
RUN npm install --global npm@11.19.1 && npm --version

FROM base AS build
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY . .
RUN npm run build

FROM base AS production-deps
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data /uploads \
 && chown node:node /data /uploads
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    UPLOAD_DIR=/uploads
COPY --from=production-deps /app/node_modules ./node_modules
COPY . .
COPY --from=build /app/build ./build
RUN chmod 755 cli/bin/spooks-admin.js && ln -s /app/cli/bin/spooks-admin.js /usr/local/bin/spooks-admin
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=6s --start-period=60s --retries=3 \
  CMD ["node", "--import", "tsx", "server/healthcheck.ts"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "server/start.ts", "--no-indexer"]
