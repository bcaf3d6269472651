#!/bin/sh
# make install: copy the built binary to its install directory and say
# where it went. Usage: scripts/install.sh BIN [PREFIX]
# The directory is PREFIX/bin when PREFIX is given, else Go's own install
# directory (GOBIN, else the first entry of GOPATH plus /bin), the same
# place `go install` would use.
set -eu
bin=${1:?usage: scripts/install.sh BIN [PREFIX]}
prefix=${2:-}
if [ -n "$prefix" ]; then
	dir=$prefix/bin
else
	dir=$(go env GOBIN)
	if [ -z "$dir" ]; then
		gopath=$(go env GOPATH)
		dir=${gopath%%:*}/bin
	fi
fi
mkdir -p "$dir"
# Copy to a temporary name, then rename, so a memctl that is running (an
# agent's hook) keeps its file and never sees a half-written one.
cp "$bin" "$dir/.memctl.tmp.$$"
chmod 0755 "$dir/.memctl.tmp.$$"
mv -f "$dir/.memctl.tmp.$$" "$dir/memctl"
echo "installed $dir/memctl ($("$dir/memctl" version))"
case ":$PATH:" in
*":$dir:"*) ;;
*)
	echo "warning: $dir is not on your PATH, so 'memctl' will not be found by your shell or by git." >&2
	echo "warning: add it, e.g. in ~/.profile:  export PATH=\"$dir:\$PATH\"" >&2
	;;
esac
found=$(command -v memctl 2>/dev/null || true)
if [ -n "$found" ] && [ "$found" != "$dir/memctl" ]; then
	echo "warning: 'memctl' on your PATH is $found, not the one just installed; put $dir earlier in PATH or remove the other" >&2
fi
