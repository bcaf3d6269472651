#!/bin/sh
# Install memctl from a release: the archive for this machine, its
# checksum verified against the release's checksums.txt, into a prefix
# (no sudo: ~/.local by default).
#
#   curl -fsSL https://raw.githubusercontent.com/memctl/memctl/main/install.sh | sh
#   sh install.sh --version v1.2.3 --prefix /opt/memctl
#   sh install.sh --from dist           # a local release (make release-snapshot)
#
# Installs PREFIX/bin/memctl, the man pages in PREFIX/share/man/man1 and
# the completions in PREFIX/share/{bash-completion/completions,
# zsh/site-functions,fish/vendor_completions.d}.
set -eu

repo=memctl/memctl
version=${MEMCTL_VERSION:-}
prefix=${MEMCTL_PREFIX:-$HOME/.local}
from=

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--version) version=${2:?--version needs a value}; shift 2 ;;
	--prefix) prefix=${2:?--prefix needs a value}; shift 2 ;;
	--from) from=${2:?--from needs a directory}; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (use --version, --prefix, --from)" ;;
	esac
done

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) die "no release for $(uname -s): build from source with Go (go install github.com/$repo/cmd/memctl@latest)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "no release for $(uname -m): build from source with Go" ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch() { # fetch URL-or-path DEST
	if [ -n "$from" ]; then
		cp "$from/$1" "$2" 2>/dev/null || die "$from/$1 not found"
	elif command -v curl >/dev/null 2>&1; then
		curl -fsSL "$base/$1" -o "$2" || die "download of $base/$1 failed"
	elif command -v wget >/dev/null 2>&1; then
		wget -q "$base/$1" -O "$2" || die "download of $base/$1 failed"
	else
		die "neither curl nor wget is installed"
	fi
}

if [ -z "$from" ]; then
	if [ -z "$version" ]; then
		# The latest release's tag, from the redirect of /releases/latest.
		command -v curl >/dev/null 2>&1 || die "curl is needed to find the latest version; give --version"
		version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "https://github.com/$repo/releases/latest" | sed 's|.*/||')
		case $version in v*) ;; *) die "could not find the latest release; give --version" ;; esac
	fi
	base=https://github.com/$repo/releases/download/$version
fi

fetch checksums.txt "$tmp/checksums.txt"
# The archive for this machine: by name, from the checksums (which also
# gives the version of a local release).
line=$(grep -E "  memctl_[^ ]*_${os}_${arch}\.tar\.gz$" "$tmp/checksums.txt" | head -n 1) || true
[ -n "$line" ] || die "no memctl archive for $os/$arch in checksums.txt"
want=${line%% *}
archive=${line##* }
fetch "$archive" "$tmp/$archive"

if command -v sha256sum >/dev/null 2>&1; then
	got=$(sha256sum "$tmp/$archive" | cut -d ' ' -f 1)
elif command -v shasum >/dev/null 2>&1; then
	got=$(shasum -a 256 "$tmp/$archive" | cut -d ' ' -f 1)
else
	die "neither sha256sum nor shasum is installed: cannot verify the download"
fi
[ "$got" = "$want" ] || die "checksum mismatch for $archive (got $got, want $want): nothing installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x"
[ -f "$tmp/x/memctl" ] || die "$archive has no memctl binary"

mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
	"$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
# A temporary name, then a rename: a memctl that is running (an agent's
# hook) keeps its file.
cp "$tmp/x/memctl" "$prefix/bin/.memctl.tmp.$$"
chmod 0755 "$prefix/bin/.memctl.tmp.$$"
mv -f "$prefix/bin/.memctl.tmp.$$" "$prefix/bin/memctl"
if [ -d "$tmp/x/manpages" ]; then
	cp "$tmp/x/manpages/"*.1.gz "$prefix/share/man/man1/"
fi
if [ -d "$tmp/x/completions" ]; then
	cp "$tmp/x/completions/memctl.bash" "$prefix/share/bash-completion/completions/memctl"
	cp "$tmp/x/completions/_memctl" "$prefix/share/zsh/site-functions/_memctl"
	cp "$tmp/x/completions/memctl.fish" "$prefix/share/fish/vendor_completions.d/memctl.fish"
fi

echo "installed $prefix/bin/memctl ($("$prefix/bin/memctl" version))"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "note: $prefix/bin is not on your PATH; add it, e.g. in ~/.profile: export PATH=\"$prefix/bin:\$PATH\"" >&2 ;;
esac
