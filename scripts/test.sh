#!/usr/bin/env bash
# `npm test`: every check and every test. A full run (no arguments) has two lanes side by side (CI
# has two cores), and runs every end-to-end suite twice, once per backend:
#   - lane 1: the unit suites, then (once the app is built) every end-to-end suite on the embedded
#     backend, then four of them again on the Twilio backend (twins): TWINS_LANE1;
#   - lane 2: the static checks (typecheck, lint, format, statecharts) side by side, then the build
#     (the app and the server, once for both lanes), then the integration suites, then every other
#     end-to-end suite on the twins, then the toast and session model suites (their machines walked
#     in Chromium).
# The suites are CPU-bound (tests/CONTEXT.md, "CI time"): the lanes are cut so both end together
# (measured in a full run), and the call and device models in Chromium (about 400 CPU seconds; their
# charts are walked over fakes in the unit project) are left to `npm run test:models`. The checks run
# beside the unit suites (no unit test is timed), not beside the integration suites, whose media
# tests want the cores they had. Any failure fails the run; a failed check or build skips the browser
# and integration suites. Lane 1 prints as it goes; the checks' output and lane 2's follow it, each
# whole.
# With arguments (`npm test -- tests/e2e/x.test.ts`): the checks, the build, then vitest with them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The build is labelled with the commit checked out now; the tests read the label from
# SWITCHBOARD_TEST_REVISION, so a commit made while they run does not change it.
revision=$(git rev-parse --short HEAD 2>/dev/null || echo dev)
export SWITCHBOARD_TEST_BUILT=1 SWITCHBOARD_TEST_REVISION=$revision

# The static checks side by side, each one's output kept whole, then the build (once, for both
# lanes: tests/support/global-setup.ts builds only when SWITCHBOARD_TEST_BUILT is unset). Writes
# $work/checks.log and, last, $work/built (0 when every check passed and the app is built).
checks_and_build() {
  local name failed=0
  check() {
    local name=$1
    shift
    (if "$@" >"$work/$name" 2>&1; then echo 0; else echo 1; fi >"$work/$name.rc") &
  }
  check typecheck npm run -s typecheck
  check lint npm run -s lint
  check format npm run -s format:check
  check statecharts npm run -s charts -- --check
  wait
  for name in typecheck lint format statecharts; do
    echo "== $name"
    cat "$work/$name"
    [ "$(cat "$work/$name.rc")" -eq 0 ] || failed=1
  done
  if [ "$failed" -eq 0 ]; then
    echo "== build ($revision)"
    SWITCHBOARD_REVISION=$revision npm run -s build || failed=1
  fi
  echo "$failed" >"$work/built"
}

# Waits until the checks and the build are done; false when one of them failed.
built() {
  while [ ! -s "$work/built" ]; do sleep 1; done
  [ "$(cat "$work/built")" -eq 0 ]
}

if [ "$#" -gt 0 ]; then
  checks_and_build
  built || exit 1
  exec npx vitest run "$@"
fi

# Every end-to-end suite runs on the twins too: these in lane 1, after the embedded run; every other
# one in lane 2. The screens that draw the most (no calls), so that the lanes end together.
TWINS_LANE1="tests/e2e/names.test.ts tests/e2e/axe.test.ts tests/e2e/contacts.test.ts tests/e2e/foundation.test.ts"
TWINS_LANE2=""
for suite in tests/e2e/*.test.ts; do
  case " $TWINS_LANE1 " in *" $suite "*) ;; *) TWINS_LANE2="$TWINS_LANE2 $suite" ;; esac
done
MODEL_SUITES="tests/model/toast.model.test.ts tests/model/session.model.test.ts"

(
  set +e
  checks_and_build >"$work/checks.log" 2>&1
  if ! built; then
    echo "== the checks or the build failed: no integration or browser suites"
    exit 1
  fi
  echo "== integration suites"
  npx vitest run --project integration
  integration=$?
  echo "== end-to-end suites on the Twilio backend (twins), the rest of them (lane 1 runs the others):"$TWINS_LANE2
  # shellcheck disable=SC2086
  SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run --project browser $TWINS_LANE2
  twins=$?
  echo "== model suites, on the embedded backend:" $MODEL_SUITES
  # shellcheck disable=SC2086
  npx vitest run --project browser $MODEL_SUITES
  models=$?
  [ "$integration" -eq 0 ] && [ "$twins" -eq 0 ] && [ "$models" -eq 0 ]
) >"$work/lane2.log" 2>&1 &
lane_pid=$!

echo "== every end-to-end suite runs on both backends: embedded, and Twilio on the twins"
echo "== lane 2 (the static checks and the build, then the integration suites, then end-to-end suites on"
echo "   the Twilio backend, then two model suites) runs beside this lane; its output follows this lane's"
echo "== unit suites"
main=0
npx vitest run --project unit || main=$?
if built; then
  echo "== every end-to-end suite on the embedded backend"
  npx vitest run --project browser tests/e2e/ || main=$?
  echo "== end-to-end suites on the Twilio backend (twins), these (lane 2 runs the others):" $TWINS_LANE1
  # shellcheck disable=SC2086
  SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run --project browser $TWINS_LANE1 || main=$?
else
  main=1
fi
lane=0
wait "$lane_pid" || lane=$?
cat "$work/checks.log"
cat "$work/lane2.log"
checks=0
built || checks=1
[ "$checks" -eq 0 ] && [ "$main" -eq 0 ] && [ "$lane" -eq 0 ]
