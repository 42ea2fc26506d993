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
# The same browser suites again in Twilio mode on the twins (SWITCHBOARD_BACKEND=twilio-twins):
# the server's Twilio webhooks, TwiML and REST run against the Sync and Voice twins
# (docs/operations.md, "Rehearsing on the twins"). Only on a full run, not when a run is narrowed
# to some files. The suites here are the ones that pass on both backends; the others are listed
# with what stops them in docs/twilio.md ("Suites on the twins").
if [ "$#" -eq 0 ]; then
  echo "== browser suites on the Twilio backend (twins): contacts, foundation, softphone, call-quality"
  SWITCHBOARD_E2E_BACKEND=twilio-twins npx vitest run tests/e2e/contacts.test.ts \
    tests/e2e/foundation.test.ts tests/e2e/softphone.test.ts tests/e2e/call-quality.test.ts
fi
