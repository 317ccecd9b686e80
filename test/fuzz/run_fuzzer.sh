#!/usr/bin/env bash
# Runs one fuzz target for a bounded time (the ctest tier fuzz.<name>; doc/fuzzing.md).
#   run_fuzzer.sh <binary> <seed corpus dir> <work dir> <seconds> [libFuzzer flags...]
# New inputs go to <work dir>/corpus, never into the committed seeds; a crash, leak, UB
# report, timeout or out-of-memory leaves its input in <work dir>/artifacts and fails.
set -euo pipefail
binary=$1 seeds=$2 work=$3 seconds=$4
shift 4
mkdir -p "$work/corpus" "$work/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Inputs grow up to 4 KB or the largest seed, whichever is larger (libFuzzer's default).
exec "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "$seeds"
