#!/usr/bin/env bash
# contractdiff-action.sh: the one step of the contractdiff GitHub Action
# (action.yml at the repository root). It builds contractdiff from the
# contractkit source it belongs to, picks the baseline, and runs
# contractdiff once: workflow annotations, the job summary and the
# markdown report, enforcing when asked. Outside GitHub Actions it runs the same
# way (the adoption test runs it on a temporary repository), printing the
# annotations to stdout.
#
# Environment (all optional):
#   CONTRACTKIT_SRC   contractkit source to build contractdiff from
#                     (default: the folder above this script)
#   CONTRACTDIFF      a contractdiff binary to use instead of building one
#   WORKDIR           the repository to check (default: .)
#   BASE              an explicit baseline git ref
#   EVENT, BASE_REF, BEFORE
#                     github.event_name, github.base_ref and
#                     github.event.before: a pull request is compared with
#                     the merge-base of HEAD and its base branch (fetched
#                     from origin when there is one), a push with the
#                     commit before it (all zeros for a new branch: a
#                     bootstrap); without them contractdiff picks its
#                     default (the merge-base with the default branch of
#                     contractkit.json)
#   ENFORCE           "true" (default) fails the step when blocked
#   REPORT            where the markdown report goes (default:
#                     contract-diff.md in WORKDIR)
#
# Exit codes: those of contractdiff (0 pass, 1 blocked with ENFORCE, 2 an
# error).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${CONTRACTKIT_SRC:-$(dirname "$here")}
cd "${WORKDIR:-.}"

bin=${CONTRACTDIFF:-}
if [ -z "$bin" ]; then
	bin="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/contractdiff-action.$$"
	(cd "$src" && go build -o "$bin" ./cmd/contractdiff)
	trap 'rm -f "$bin"' EXIT
fi

base=${BASE:-}
if [ -z "$base" ]; then
	case "${EVENT:-}" in
	pull_request | pull_request_target)
		target=${BASE_REF:?BASE_REF is the pull request base branch}
		if git remote get-url origin >/dev/null 2>&1; then
			git fetch --no-tags --quiet origin "$target"
			target="origin/$target"
		fi
		base=$(git merge-base "$target" HEAD)
		;;
	push)
		base=${BEFORE:-}
		[ -n "$base" ] || base=0000000000000000000000000000000000000000
		;;
	esac
fi
args=(--allow-missing-baseline)
[ -n "$base" ] && args+=(--baseline-git-ref "$base")

report=${REPORT:-contract-diff.md}
# One comparison: the annotations (at most ten of each level) on stdout,
# the job summary, which holds every finding, and the markdown report in
# $report, for an artifact or a comment.
enforce=()
[ "${ENFORCE:-true}" = true ] && enforce=(--enforce)
# Not exec'd: the trap removes the binary built above once it is done
# (set -e passes its exit code on).
"$bin" "${args[@]}" --format github --markdown "$report" "${enforce[@]}"
