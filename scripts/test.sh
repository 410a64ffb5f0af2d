#!/usr/bin/env bash
# The whole test suite, as CI runs it: gofmt, go vet, golangci-lint, then
# every test under the race detector. Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1

echo "== gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== golangci-lint"
go tool -modfile=scripts/lint/go.mod golangci-lint run ./...

echo "== go test -race"
go test -race -count=1 -timeout 30m ./...
