# syntax=docker/dockerfile:1
# Multi-stage: build the JavaScript in one stage, install production dependencies in another, run as a non-root
# user in the last.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The simulator is an npm workspace (src/sim): npm ci needs its package.json to link it.
COPY package.json package-lock.json ./
COPY src/sim/package.json ./src/sim/
# Scripts run below, once the sources are in: `prepare` (the build) would find none yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY commands ./commands
COPY jobs ./jobs
COPY bin ./bin
# The build, then one CLI run to save V8's code cache of the CLI (dist/.v8-cache) into the image.
RUN npm run build && node bin/eks-upgrade.js help >/dev/null

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY src/sim/package.json ./src/sim/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 CLUSTERS_FILE=/config/clusters.yaml
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
COPY bin ./bin
# `eks-upgrade doctor` holds each cluster to the ClusterRole, and names the policy lines to add.
COPY deploy/rbac ./deploy/rbac
COPY deploy/iam ./deploy/iam
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Plain JavaScript built by esbuild (dist/main.cjs), loaded with V8's code cache: nothing compiles TypeScript at start.
# The simulator's build is dist/sim/cli.js (docker-compose.yml runs it).
CMD ["node", "bin/eks-upgrade-bot.cjs"]
