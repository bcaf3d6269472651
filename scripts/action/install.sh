#!/usr/bin/env bash
# The install step of action.yml: put memctl on the job's PATH.
#
# A release archive for the runner (RUNNER_OS, RUNNER_ARCH) is downloaded
# from GitHub with its checksums.txt, its SHA-256 checked, and unpacked
# into RUNNER_TEMP; or memctl is built with the runner's Go
# (INPUT_BUILD_FROM_SOURCE=true, or =fallback when no release fits).
#
# Environment: INPUT_VERSION (a tag; empty: ACTION_REF when it is a tag,
# else the latest release), INPUT_BUILD_FROM_SOURCE (false, true,
# fallback), RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH,
# GITHUB_OUTPUT. MEMCTL_RELEASE_DIR, when set, is a local release
# directory used instead of GitHub (tests, mirrors).
set -euo pipefail

repo=memctl/memctl
version=${INPUT_VERSION:-}
if [[ -z $version && ${ACTION_REF:-} == v[0-9]* ]]; then
	version=$ACTION_REF
fi
mode=${INPUT_BUILD_FROM_SOURCE:-false}
dest=${RUNNER_TEMP:?RUNNER_TEMP is not set}/memctl
mkdir -p "$dest/bin"

build() {
	command -v go >/dev/null || { echo "::error title=memctl::building memctl needs Go on the runner: add actions/setup-go before this action"; exit 1; }
	local at=${version:-latest}
	echo "building memctl@$at with $(go version)"
	GOBIN="$dest/bin" CGO_ENABLED=0 go install "github.com/$repo/cmd/memctl@$at"
}

download() {
	local os arch ext
	case ${RUNNER_OS:-} in
	Linux) os=linux ;;
	macOS) os=darwin ;;
	*) echo "no release archive for runner OS ${RUNNER_OS:-unknown}"; return 1 ;;
	esac
	case ${RUNNER_ARCH:-} in
	X64) arch=amd64 ;;
	ARM64) arch=arm64 ;;
	*) echo "no release archive for runner arch ${RUNNER_ARCH:-unknown}"; return 1 ;;
	esac
	ext=tar.gz
	local tmp
	tmp=$(mktemp -d)
	fetch() { # name dest
		if [[ -n ${MEMCTL_RELEASE_DIR:-} ]]; then
			cp "$MEMCTL_RELEASE_DIR/$1" "$2"
		else
			curl -fsSL --retry 3 "https://github.com/$repo/releases/download/$version/$1" -o "$2"
		fi
	}
	if [[ -z $version && -z ${MEMCTL_RELEASE_DIR:-} ]]; then
		version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$repo/releases/latest" | sed 's|.*/||')
		[[ $version == v* ]] || { echo "could not find the latest memctl release"; return 1; }
	fi
	fetch checksums.txt "$tmp/checksums.txt" || { echo "no checksums.txt for memctl ${version:-(local)}"; return 1; }
	local line
	line=$(grep -E "  memctl_[^ ]*_${os}_${arch}\.${ext}$" "$tmp/checksums.txt" | head -n 1) || true
	[[ -n $line ]] || { echo "no memctl archive for $os/$arch in checksums.txt"; return 1; }
	local want=${line%% *} archive=${line##* }
	fetch "$archive" "$tmp/$archive" || { echo "download of $archive failed"; return 1; }
	local got
	if command -v sha256sum >/dev/null; then
		got=$(sha256sum "$tmp/$archive" | cut -d ' ' -f 1)
	else
		got=$(shasum -a 256 "$tmp/$archive" | cut -d ' ' -f 1)
	fi
	if [[ $got != "$want" ]]; then
		echo "::error title=memctl::checksum mismatch for $archive (got $got, want $want)"
		exit 1 # never fall back past a bad download
	fi
	tar -xzf "$tmp/$archive" -C "$tmp"
	install -m 0755 "$tmp/memctl" "$dest/bin/memctl"
	rm -rf "$tmp"
}

case $mode in
true) build ;;
false) download || { echo "::error title=memctl::no memctl release to install (set build-from-source: fallback to build it with Go)"; exit 1; } ;;
fallback) download || build ;;
*) echo "::error title=memctl::build-from-source must be true, false or fallback, not $mode"; exit 1 ;;
esac

echo "$dest/bin" >> "${GITHUB_PATH:?GITHUB_PATH is not set}"
v=$("$dest/bin/memctl" version)
echo "$v"
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
	echo "version=$v" >> "$GITHUB_OUTPUT"
fi
