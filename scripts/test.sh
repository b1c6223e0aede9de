#!/usr/bin/env bash
# The whole test suite: type check, lint and format check, then every tier (vitest.config.ts): unit and
# integration side by side, then the browser tier, then the resilience tier. README, "Tests".
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund
echo "Node.js $(node --version) ($(command -v node))" >&2
bash scripts/ensure-services.sh
bash scripts/ensure-chromium.sh
npx tsc -p tsconfig.json
npx tsc -p web/tsconfig.json
npm run --silent lint
npx vitest run "$@"
