#!/usr/bin/env bash
# .ci/run on a fresh clone of HEAD in /tmp/ci-steps, with the time printed
# before each of its top-level steps ("@@ <epoch seconds> start: <step>"),
# to see where CI's time goes (ci_time.md). ../shared is not beside the
# clone, so .ci/external skips itself: time it alone with
#   time bash .ci/external target/debug/collsel
# Usage: bash experiments/ci_steps.sh > /tmp/ci.log 2>&1; grep @@ /tmp/ci.log
set -euo pipefail
rm -rf /tmp/ci-steps
git clone -q "$(git rev-parse --show-toplevel)" /tmp/ci-steps
cd /tmp/ci-steps
awk '/^[^#[:space:]]/ && !/^(set|cd|export) / { s = $0; gsub(/"/, "\\\"", s); print "echo \"@@ $(date +%s) start: " s "\"" } { print } END { print "echo \"@@ $(date +%s) end\"" }' .ci/run > .ci/run-steps
bash .ci/run-steps
