#!/usr/bin/env bash
# The whole test suite (README, "Tests"): every tier of vitest.config.ts in one vitest run (unit and
# integration side by side, then the browser and build tiers, then the resilience tier), and beside it the type
# checks and the linters (each one process: they fill the time vitest's workers wait on PostgreSQL,
# Chromium or a page's timers; before vitest they cost 22 s of a 438 s run; docs/decisions.md, "The
# suite in six minutes"). The checks' output is printed after vitest's.
# Every check runs even when another failed; the script fails naming each step that failed.
# With arguments (`npm test -- FILE…`, `--project NAME`), vitest runs on what you name.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -d node_modules ] || npm ci --no-audit --no-fund
# The project's Node.js and tools first, as under `npm test`, also when the script is run with bash.
export PATH="$PWD/node_modules/.bin:$PATH"
echo "Node.js $(node --version) ($(command -v node))" >&2
bash scripts/ensure-services.sh
bash scripts/ensure-chromium.sh

logs=$(mktemp -d)
declare -A pids=()
failed=()
# Background steps ignore Ctrl-C in a script: stop the ones still running when the script ends early.
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$logs"' EXIT
trap 'exit 130' INT TERM

# A step in the background, its output kept apart so that the steps' outputs do not interleave.
start() {
  local name=$1
  shift
  "$@" </dev/null >"$logs/$name.log" 2>&1 &
  pids[$name]=$!
}
# Waits for a background step and prints its output under its name.
finish() {
  local name=$1 status=0
  wait "${pids[$name]}" || status=$?
  unset "pids[$name]"
  echo "── $name ($([ "$status" = 0 ] && echo passed || echo "failed, exit $status")) ──"
  cat "$logs/$name.log"
  [ "$status" = 0 ] || failed+=("$name")
}
# A step in the foreground, its output as it runs.
run() {
  local name=$1
  shift
  "$@" || failed+=("$name")
}
# The type checks run on TypeScript 7's native compiler (the `typescript-7` alias; `typescript` 5.9
# stays for the tools that use its compiler API), incremental: a fresh clone's check of src/ and test/
# took 12 CPU-s instead of 42 (docs/decisions.md, "Type checks on the native compiler"). Called by path,
# since both packages name their command `tsc`.
TSC=node_modules/typescript-7/bin/tsc
start_checks() {
  start typecheck node "$TSC" -p tsconfig.json --incremental --tsBuildInfoFile node_modules/.cache/tsc/server.tsbuildinfo
  start typecheck-web node "$TSC" -p web/tsconfig.json --incremental --tsBuildInfoFile node_modules/.cache/tsc/web.tsbuildinfo
  start lint npm run --silent lint
}
finish_checks() {
  finish typecheck
  finish typecheck-web
  finish lint
}
conclude() {
  if [ ${#failed[@]} -gt 0 ]; then
    echo "npm test failed: ${failed[*]}" >&2
    exit 1
  fi
}

start_checks
run vitest vitest run "$@"
finish_checks
conclude
