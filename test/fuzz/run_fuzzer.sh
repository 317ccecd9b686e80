#!/usr/bin/env bash
# Runs one fuzz target for a bounded time (the ctest tier fuzz.<name>; doc/fuzzing.md).
#   run_fuzzer.sh <binary> <name> <work dir> <seconds> [libFuzzer flags...]
# First every input in test/fuzz/regressions/<name>/ (inputs that once failed) runs once;
# then the target fuzzes from test/fuzz/corpus/<name>/ for <seconds>. New inputs go to
# <work dir>/corpus, never into the committed seeds; a crash, leak, UB report, timeout or
# out-of-memory leaves its input in <work dir>/artifacts and fails.
set -euo pipefail
binary=$1 name=$2 work=$3 seconds=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/corpus" "$work/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
common=(-rss_limit_mb=2048 -artifact_prefix="$work/artifacts/")
shopt -s nullglob
regressions=("$here/regressions/$name"/*)
if [ ${#regressions[@]} -gt 0 ]; then
  echo "run_fuzzer: ${#regressions[@]} regression input(s) of $name"
  # Some are large (a 120 KB nesting takes seconds under ASan): a generous per-input limit.
  "$binary" "${common[@]}" -timeout=120 "${regressions[@]}"
fi
# Mutated inputs stay small (bodies of a few KB find most); regressions may be larger.
exec "$binary" "${common[@]}" -timeout=10 -max_total_time="$seconds" -max_len=8192 -print_final_stats=1 \
  "$@" "$work/corpus" "$here/corpus/$name"
