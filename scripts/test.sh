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
# time): the unit and browser projects in this shell; beside them the integration project (real
# server processes driven by the SDKs in Node), then the browser suites that run again in Twilio
# mode on the twins (SWITCHBOARD_BACKEND=twilio-twins: the server's Twilio webhooks, TwiML and REST
# against the Sync and Voice twins; docs/operations.md, "Rehearsing on the twins"). The second
# lane's output is printed after the first's. Suites listed in TWINS_SUITES are the ones CI's 30
# minutes carry; docs/twilio.md ("Suites on the twins") lists the others and what each needs.
TWINS_SUITES="tests/e2e/contacts.test.ts tests/e2e/foundation.test.ts tests/e2e/softphone.test.ts tests/e2e/call-quality.test.ts tests/e2e/hold.test.ts"
lane_pid=""
if [ "$#" -eq 0 ]; then
  lane_log=$(mktemp)
  (
    set +e
    echo "== integration suites (beside the unit and browser suites)"
    npx vitest run --project integration
    integration=$?
    echo "== browser suites on the Twilio backend (twins): $TWINS_SUITES"
    # shellcheck disable=SC2086
    SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run $TWINS_SUITES
    twins=$?
    [ "$integration" -eq 0 ] && [ "$twins" -eq 0 ]
  ) >"$lane_log" 2>&1 &
  lane_pid=$!
  set -- --project unit --project browser
fi
main=0
npx vitest run "$@" || main=$?
lane=0
if [ -n "$lane_pid" ]; then
  wait "$lane_pid" || lane=$?
  cat "$lane_log"
  rm -f "$lane_log"
fi
[ "$main" -eq 0 ] && [ "$lane" -eq 0 ]
