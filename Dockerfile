# The service's image (docs/operations.md, "Containers"). These machines cannot pull base images, so
# `npm run container-check` (scripts/container-check.ts) runs the same steps without Docker in CI;
# test/build/container.test.ts keeps its list of runtime files and its health check equal to this file's.

# Build stage: every dependency, then the compiled server and the prebuilt browser files in dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN npm run build

# Runtime stage: production dependencies only, no compiler, no bundler; runs as the image's non-root user.
FROM node:24-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist dist
COPY fixtures fixtures
COPY web/loader/published web/loader/published
COPY web/pages web/pages
# PGlite's files when no DATABASE_URL is set (one process only; mount a volume to keep them).
RUN mkdir data && chown node:node data
USER node
ENV HOST=0.0.0.0 PORT=3000 DEMO_PORT=0
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/server.js"]
