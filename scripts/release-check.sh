#!/usr/bin/env bash
# Runs the end-to-end suite against the release binary (docs/development.md, "Before a release").
#
#   scripts/release-check.sh
#
# CI tests the debug build; the release build is what a person installs and what the
# benchmarks measure, and it differs: it is optimised (-O) and links the Swift runtime
# statically. An optimiser-only crash once shipped this way: every typed TIMEPOINT message
# crashed the release binary while the whole suite passed in debug. This builds `reception`
# and `reception-reference-server` in release (about 8 minutes from clean on 2 cores, too
# long for CI's 20-minute budget beside the debug suite) and runs ReceptionEndToEndTests,
# which drive the real binary through every backend against the reference servers, on a
# pseudo-terminal and through pipes, with RECEPTION_BINARY pointing at the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product reception
swift build -c release --product reception-reference-server
swift build --build-tests
RECEPTION_BINARY="$PWD/.build/release/reception" swift test --skip-build --filter ReceptionEndToEndTests
