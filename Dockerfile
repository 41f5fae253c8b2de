# schoolgate as a container: `docker build -t schoolgate .`; deploy/compose.yaml runs two of them behind
# nginx with PostgreSQL and Redis. Two stages: the first compiles TypeScript and the SQLite addon, the
# second holds only the build and production dependencies, and runs as the unprivileged `node` user.
# Node 24, the long-term release supported until 2028-04-30 (Node 20 ended on 2026-04-30, Node 22 ends on
# 2027-04-30). Since Node 22 an AbortSignal is built without a hidden class of its own each time
# (nodejs/node#52408), which the MCP SDK does for every request: an MCP tool call takes about a fifth less
# CPU than on Node 20; on Node 24 UserInfo and introspection cost less again than on Node 22 (bench/RESULTS.md,
# thirty-first and thirty-second sessions). The code still runs on Node 20.12+.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 is compiled here against the headers the node image ships (npm_config_nodedir), so the
# install downloads nothing but registry packages.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local npm_config_build_from_source=true
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATABASE_URL=sqlite:/data/schoolgate.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The SQLite file lives on a volume owned by the unprivileged user; PostgreSQL deployments leave it empty.
RUN mkdir /data && chown node:node /data \
  && ln -s /app/bin/schoolgate.js /usr/local/bin/schoolgate
VOLUME /data
USER node
EXPOSE 3000
# Liveness only (/healthz): a node whose database is away answers 503s by itself and must not be
# restarted for it; readiness (/readyz) is for the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js", "serve"]
