#!/usr/bin/env bash
# `npm test`: every check and every test, in the order that fails fastest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
# The static checks side by side (two cores; lint is the longest), each one's output kept whole and
# printed in order; any failure stops here.
checks_dir=$(mktemp -d)
check() {
  local name=$1
  shift
  (if "$@" >"$checks_dir/$name" 2>&1; then echo 0; else echo 1; fi >"$checks_dir/$name.rc") &
}
check typecheck npm run -s typecheck
check lint npm run -s lint
check format npm run -s format:check
check statecharts npm run -s charts -- --check
wait
checks_failed=0
for name in typecheck lint format statecharts; do
  echo "== $name"
  cat "$checks_dir/$name"
  [ "$(cat "$checks_dir/$name.rc")" -eq 0 ] || checks_failed=1
done
rm -rf "$checks_dir"
[ "$checks_failed" -eq 0 ] || exit 1
# Built once for both lanes below (tests/support/global-setup.ts builds only when
# SWITCHBOARD_TEST_BUILT is unset), labelled with the commit checked out now; the tests read the
# label from SWITCHBOARD_TEST_REVISION, so a commit made while they run does not change it.
revision=$(git rev-parse --short HEAD 2>/dev/null || echo dev)
echo "== build ($revision)" && SWITCHBOARD_REVISION=$revision npm run -s build
export SWITCHBOARD_TEST_BUILT=1 SWITCHBOARD_TEST_REVISION=$revision
echo "== tests"
# Two lanes on a full run (CI has two cores, and the browser suites leave one idle much of the
# time): the unit and browser projects in this shell, the browser suites on the default embedded
# backend; beside them the integration project (real server processes driven by the SDKs in Node),
# then every end-to-end suite (tests/e2e) a second time, in Twilio mode on the twins
# (SWITCHBOARD_BACKEND=twilio-twins: the server's Twilio webhooks, TwiML and REST against the Sync
# and Voice twins; docs/operations.md, "Rehearsing on the twins"). A feature that works on one
# backend and not the other fails the run. The second lane's output is printed after the first's.
TWINS_SUITES="tests/e2e/"
# Two short model suites (embedded backend) end the second lane instead, so the lanes end together.
MOVED_SUITES="tests/model/toast.model.test.ts tests/model/session.model.test.ts"
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
    echo "== model suites moved here from the first lane, on the embedded backend: $MOVED_SUITES"
    # shellcheck disable=SC2086
    npx vitest run --project browser $MOVED_SUITES
    moved=$?
    [ "$integration" -eq 0 ] && [ "$twins" -eq 0 ] && [ "$moved" -eq 0 ]
  ) >"$lane_log" 2>&1 &
  lane_pid=$!
  set -- --project unit --project browser
  for suite in $MOVED_SUITES; do set -- "$@" --exclude "$suite"; done
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
