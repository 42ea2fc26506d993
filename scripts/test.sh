#!/usr/bin/env bash
# `npm test`: every check and every test, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
echo "== typecheck" && npm run -s typecheck
echo "== lint" && npm run -s lint
echo "== format" && npm run -s format:check
echo "== statecharts are current" && npm run -s charts -- --check
echo "== build" && npm run -s build
echo "== tests"
npx vitest run "$@"
