#!/usr/bin/env bash
# `npm test`: every check and every test. A full run (no arguments) has two lanes side by side (CI
# has two cores):
#   - lane 1: the unit suites, then (once the app is built) every end-to-end suite on the embedded
#     backend, then a share of the end-to-end suites on the Twilio backend (twins);
#   - lane 2: the static checks (typecheck, lint, format, statecharts) side by side, then the build
#     (the app and the server), then the integration suites, then the other end-to-end suites on the
#     twins, then every model suite (the toast, session, call and device machines walked in
#     Chromium).
# So every end-to-end suite runs twice, once per backend; the summary at the end has a table of
# which suite passed where. The suites are CPU-bound (tests/CONTEXT.md, "CI time"); the share of the
# twins' suites each lane takes is chosen so the lanes end together (TWINS_LANE1 below: measured
# times in tests/CONTEXT.md). A suite not named there runs on lane 2, so a new suite is on both
# backends without a change here. The
# checks run beside the unit suites (no unit test is timed), not beside the integration suites,
# whose media tests want the cores they had. Any failure fails the run; a failed check or build
# skips the browser and integration suites. Lane 1 prints as it goes; the checks' output and lane
# 2's follow it, each whole; last comes a summary, each step's result and every failure's report
# again, so the end of the output (all a CI page may keep) says what failed.
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

# Runs one step (a vitest run), its output printed and kept in $work/steps/<n>-<name>; false when it
# failed.
step() {
  local name=$1 rc
  shift
  mkdir -p "$work/steps"
  local out
  out="$work/steps/$(date +%s%N)-$name"
  "$@" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  echo "$rc" >"$out.rc"
  return "$rc"
}

# A step's output without its colours.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

# How one end-to-end file ended in the steps named like $2: passed, FAILED, or "not run" (vitest's
# line for the file: " ✓  browser  tests/e2e/x.test.ts (n tests)" or " ❯ " when a test failed).
suite_result() {
  local out line
  for out in "$work"/steps/*-$2; do
    [ -f "$out" ] || continue
    line=$(plain "$out" | grep -E "^ (✓|❯|×) +browser +$1 " | head -1)
    case $line in
      " ✓"*) echo passed && return ;;
      ?*) echo FAILED && return ;;
    esac
  done
  echo "not run"
}

# The summary: each step's result, then for each failed step its failure reports (vitest's "Failed
# Tests" and "Unhandled Errors" sections, colours removed).
summary() {
  local out rc name
  echo
  echo "== summary"
  built && echo "  passed  the static checks and the build" ||
    echo "  FAILED  the static checks or the build (their output is above, under == typecheck, lint, format, statecharts, build)"
  for out in "$work"/steps/*; do
    case $out in *.rc) continue ;; esac
    rc=$(cat "$out.rc" 2>/dev/null || echo 1)
    name=${out##*/}
    name=${name#*-}
    if [ "$rc" -eq 0 ]; then echo "  passed  $name"; else echo "  FAILED  $name (exit $rc)"; fi
    plain "$out" | grep -E '^ *(Test Files|Tests) ' | sed 's/^/          /'
  done
  echo
  echo "== every end-to-end suite on both backends (passed: every test of the file passed); the twins"
  echo "   in their $TWINS_NETWORK network, seed $TWINS_SEED (replay a suite: $TWINS_REPLAY)"
  printf '  %-40s %-10s %s\n' suite embedded "Twilio (twins)"
  local f embedded twins
  for f in $E2E_SUITES; do
    embedded=$(suite_result "$f" 'e2e-embedded')
    twins=$(suite_result "$f" 'e2e-on-twins-*')
    printf '  %-40s %-10s %s\n' "${f#tests/e2e/}" "$embedded" "$twins"
  done
  for out in "$work"/steps/*; do
    case $out in *.rc) continue ;; esac
    rc=$(cat "$out.rc" 2>/dev/null || echo 1)
    [ "$rc" -eq 0 ] && continue
    name=${out##*/}
    echo
    echo "== what failed in ${name#*-}"
    plain "$out" | grep -E '^ *(FAIL|×) ' | sort -u | head -40
    plain "$out" | awk '/(Failed Tests|Unhandled Errors?|Failed Suites) [0-9]*/ { on = 1 } on' | head -300
  done
}

if [ "$#" -gt 0 ]; then
  checks_and_build
  built || exit 1
  exec npx vitest run "$@"
fi

# The end-to-end suites lane 1 runs on the twins after its embedded run; lane 2 runs the others.
TWINS_LANE1="tests/e2e/names.test.ts tests/e2e/axe.test.ts tests/e2e/contacts.test.ts
  tests/e2e/foundation.test.ts tests/e2e/admin-keyboard.test.ts"
E2E_SUITES=$(ls tests/e2e/*.test.ts)
# shellcheck disable=SC2086
TWINS_LANE2=$(printf '%s\n' $E2E_SUITES | grep -vxF -f <(printf '%s\n' $TWINS_LANE1))
MODEL_SUITES=$(ls tests/model/*.test.ts)
# The end-to-end suites on the twins run in the twins' real network (docs/twins-voice.md, "Twilio's
# timing": status callbacks late, twice or out of order, redirects applied after their answer), with
# a fresh seed each run, printed here and in the summary so a failure is replayed with it (or
# SWITCHBOARD_TWINS_SEED when given); SWITCHBOARD_TWINS_NETWORK=ideal runs them in the ideal one.
TWINS_NETWORK=${SWITCHBOARD_TWINS_NETWORK:-real}
TWINS_SEED=${SWITCHBOARD_TWINS_SEED:-$(((RANDOM << 15) | RANDOM))}
TWINS_ENV="SWITCHBOARD_E2E_BACKEND=twilio-twins SWITCHBOARD_TWINS_NETWORK=$TWINS_NETWORK SWITCHBOARD_TWINS_SEED=$TWINS_SEED"
TWINS_REPLAY="$TWINS_ENV npm test -- tests/e2e/<suite>.test.ts"
echo "== the twins' network: $TWINS_NETWORK, seed $TWINS_SEED (replay a suite: $TWINS_REPLAY)"

(
  set +e
  checks_and_build >"$work/checks.log" 2>&1
  if ! built; then
    echo "== the checks or the build failed: no integration or browser suites"
    exit 1
  fi
  echo "== integration suites"
  step integration npx vitest run --project integration
  integration=$?
  echo "== end-to-end suites on the Twilio backend (twins), lane 2's share:" $TWINS_LANE2
  # shellcheck disable=SC2086
  step e2e-on-twins-lane-2 env $TWINS_ENV npx vitest run --project browser $TWINS_LANE2
  twins=$?
  echo "== model suites, on the embedded backend:" $MODEL_SUITES
  # shellcheck disable=SC2086
  step models npx vitest run --project browser $MODEL_SUITES
  models=$?
  [ "$integration" -eq 0 ] && [ "$twins" -eq 0 ] && [ "$models" -eq 0 ]
) >"$work/lane2.log" 2>&1 &
lane_pid=$!

echo "== lane 2 (the static checks and the build, then the integration suites, then its share of the"
echo "   end-to-end suites on the Twilio backend, then every model suite) runs beside this lane; its"
echo "   output follows this lane's"
echo "== unit suites, then every end-to-end suite on the embedded backend, then lane 1's share on the twins"
main=0
step unit npx vitest run --project unit || main=$?
if built; then
  step e2e-embedded npx vitest run --project browser tests/e2e/ || main=$?
  echo "== end-to-end suites on the Twilio backend (twins), lane 1's share:" $TWINS_LANE1
  # shellcheck disable=SC2086
  step e2e-on-twins-lane-1 env $TWINS_ENV npx vitest run --project browser $TWINS_LANE1 ||
    main=$?
else
  main=1
fi
lane=0
wait "$lane_pid" || lane=$?
cat "$work/checks.log"
cat "$work/lane2.log"
checks=0
built || checks=1
summary
[ "$checks" -eq 0 ] && [ "$main" -eq 0 ] && [ "$lane" -eq 0 ]
