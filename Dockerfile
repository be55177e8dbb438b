# syntax=docker/dockerfile:1
# Multi-stage: install production dependencies in one stage, run as a non-root user in the next.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
# The simulator is an npm workspace (src/sim): npm ci needs its package.json to link it.
COPY package.json package-lock.json ./
COPY src/sim/package.json ./src/sim/
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 CLUSTERS_FILE=/config/clusters.yaml
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY commands ./commands
COPY jobs ./jobs
COPY bin ./bin
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# tsx runs the TypeScript sources directly (it is a production dependency): no build step to drift from the code.
CMD ["node", "--import", "tsx", "src/main.ts"]
