#!/usr/bin/env bash
# make test: the whole suite under the race detector, printed as go test
# prints it without -v (through scripts/testsummary, which reads its
# -json stream), then bench/livetrace's (a module of its own), then the
# tests built only without the race detector
# (scripts/norace-tests.sh), then the list of every skipped test with the
# reason it gave. The exit status is go test's, the summarizer's,
# bench/livetrace's or the last pass's, whichever failed.
set -uo pipefail
cd "$(dirname "$0")/.."
skips=$(mktemp)
# Built before the run, so that a compile error of the summarizer is not
# mistaken for the suite's.
summary=$(mktemp -d)/testsummary
trap 'rm -f "$skips"; rm -rf "$(dirname "$summary")"' EXIT
go build -o "$summary" ./scripts/testsummary || exit 1
status=0
go test -race -count=1 -json ./... | "$summary" -skips "$skips" || status=1
# bench/livetrace is a module of its own, so that its trace reader's
# dependency (golang.org/x/exp) stays out of what the module's users
# build; its tests run here all the same.
(cd bench/livetrace && go test -race -count=1 ./...) || status=1
./scripts/norace-tests.sh || status=1
echo
cat "$skips"
exit $status
