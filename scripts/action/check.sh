#!/usr/bin/env bash
# The check step of action.yml: memctl check with GitHub annotations, and
# INPUT_ARGS (split as the shell splits words) after it. Its exit code is
# check's: 0 clean, 1 findings, 2 usage or internal error.
set -euo pipefail
read -r -a extra <<< "${INPUT_ARGS:-}"
format=()
if [[ " ${INPUT_ARGS:-} " != *" --format"* && " ${INPUT_ARGS:-} " != *" --json "* ]]; then
	format=(--format github)
fi
# ${a[@]+"${a[@]}"}: an empty array under set -u on the bash of macOS (3.2)
exec memctl check ${format[@]+"${format[@]}"} ${extra[@]+"${extra[@]}"}
