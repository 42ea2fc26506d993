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
# The browser suites that run again in Twilio mode on the twins (SWITCHBOARD_BACKEND=twilio-twins):
# the server's Twilio webhooks, TwiML and REST against the Sync and Voice twins (docs/operations.md,
# "Rehearsing on the twins"). They are the suites that pass on both backends; the others are
# listed with what stops them in docs/twilio.md ("Suites on the twins"). Only on a full run, and
# beside the main run (which leaves a core idle much of the time), its output printed after it.
# More pass there (docs/twilio.md); these are the ones CI's 30 minutes carry beside the main run (all
# ten took 437 s beside it on 2026-11-27 and slowed it past the limit).
TWINS_SUITES="tests/e2e/contacts.test.ts tests/e2e/foundation.test.ts tests/e2e/softphone.test.ts tests/e2e/call-quality.test.ts tests/e2e/hold.test.ts"
twins_pid=""
if [ "$#" -eq 0 ]; then
  twins_log=$(mktemp)
  # shellcheck disable=SC2086
  SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run $TWINS_SUITES >"$twins_log" 2>&1 &
  twins_pid=$!
fi
main=0
npx vitest run "$@" || main=$?
twins=0
if [ -n "$twins_pid" ]; then
  wait "$twins_pid" || twins=$?
  echo "== browser suites on the Twilio backend (twins): $TWINS_SUITES"
  cat "$twins_log"
  rm -f "$twins_log"
fi
[ "$main" -eq 0 ] && [ "$twins" -eq 0 ]
