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
# Built once for both lanes below: tests/support/global-setup.ts builds only when this is unset.
export SWITCHBOARD_TEST_BUILT=1
echo "== tests"
# Two lanes on a full run (CI has two cores, and the browser suites leave one idle much of the
# time): the unit and browser projects in this shell, the browser suites on the default embedded
# backend; beside them the integration project (real server processes driven by the SDKs in Node),
# then every end-to-end suite (tests/e2e) a second time, in Twilio mode on the twins
# (SWITCHBOARD_BACKEND=twilio-twins: the server's Twilio webhooks, TwiML and REST against the Sync
# and Voice twins; docs/operations.md, "Rehearsing on the twins"). A feature that works on one
# backend and not the other fails the run. The second lane's output is printed after the first's.
TWINS_SUITES="tests/e2e/"
lane_pid=""
if [ "$#" -eq 0 ]; then
  lane_log=$(mktemp)
  (
    set +e
    echo "== integration suites (beside the unit and browser suites)"
    npx vitest run --project integration
    integration=$?
    echo "== every end-to-end suite again, on the Twilio backend (twins): $TWINS_SUITES"
    SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run --project browser "$TWINS_SUITES"
    twins=$?
    [ "$integration" -eq 0 ] && [ "$twins" -eq 0 ]
  ) >"$lane_log" 2>&1 &
  lane_pid=$!
  set -- --project unit --project browser
fi
main=0
if [ -n "$lane_pid" ]; then
  echo "== unit suites, then the browser suites on the embedded backend (the integration suites and"
  echo "   the end-to-end suites on the Twilio backend run beside them; their output follows)"
fi
npx vitest run "$@" || main=$?
lane=0
if [ -n "$lane_pid" ]; then
  wait "$lane_pid" || lane=$?
  cat "$lane_log"
  rm -f "$lane_log"
fi
[ "$main" -eq 0 ] && [ "$lane" -eq 0 ]
