#!/usr/bin/env bash
# The check step of action.yml: memctl check, with INPUT_ARGS (split as
# the shell splits words) after it; check writes GitHub annotations by
# itself on a runner (GITHUB_ACTIONS=true) unless the args ask for
# another format. Its exit code is check's: 0 clean, 1 findings, 2 usage
# or internal error.
set -euo pipefail
read -r -a extra <<< "${INPUT_ARGS:-}"
# ${a[@]+"${a[@]}"}: an empty array under set -u on the bash of macOS (3.2)
exec memctl check ${extra[@]+"${extra[@]}"}
