#!/bin/sh
# Before a release build (goreleaser's before hook, make release-snapshot):
# generate what every archive and package ships besides the binary, from
# the source tree: shell completions and man pages.
#   completions/memctl.bash, completions/_memctl (zsh), completions/memctl.fish
#   manpages/*.1.gz
# Usage: scripts/release-extras.sh [go command]
set -eu
go=${1:-go}
rm -rf completions manpages
mkdir -p completions manpages
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 "$go" build -trimpath -o "$tmp/memctl" ./cmd/memctl # -trimpath: a fresh copy of the tree reuses the build cache
"$tmp/memctl" completion bash > completions/memctl.bash
"$tmp/memctl" completion zsh > completions/_memctl
"$tmp/memctl" completion fish > completions/memctl.fish
"$tmp/memctl" man "$tmp/man" 2>/dev/null
for page in "$tmp"/man/*.1; do
	gzip -9 -n -c "$page" > "manpages/$(basename "$page").gz"
done
