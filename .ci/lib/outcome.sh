# `outcome RUNNER ARGS...`: how `RUNNER ARGS...` ended under the address-space limit
# ($address_space_kib) and the time limit ($timeout_s), in a few words: passed, refused in one
# sentence, allocation abort, panic, killed by a signal, still running. Shared by .ci/size-table
# (which asks `RUNNER run <id> ...`) and .ci/bad-input-sweep.
outcome() {
  local runner=$1
  shift
  local err stdout rc
  err=$(mktemp)
  # OUTCOME_STDOUT (a file, such as /dev/full) takes the runner's standard output instead.
  local redirect=""
  [ -n "${OUTCOME_STDOUT:-}" ] && redirect=" >${OUTCOME_STDOUT}"
  stdout=$(sh -c "ulimit -v $address_space_kib && exec timeout $timeout_s \"\$0\" \"\$@\"$redirect" "$runner" "$@" 2>"$err")
  rc=$?
  local lines first
  lines=$(grep -c . "$err")
  first=$(head -n 1 "$err")
  if [ $rc -eq 124 ]; then
    echo "still running after ${timeout_s} s"
  elif grep -q "memory allocation of" "$err"; then
    echo "abort (exit $rc: memory allocation failed)"
  elif grep -q -e "panicked" -e "RUST_BACKTRACE" "$err"; then
    echo "panic (exit $rc): $(grep -m1 -o "panicked.*" "$err" | cut -c1-60)"
  elif [ $rc -eq 137 ] || [ $rc -eq 139 ] || [ $rc -eq 134 ]; then
    echo "killed by a signal (exit $rc)"
  elif [ $rc -eq 0 ] && [[ "$stdout" == *PASSED ]]; then
    echo "passed"
  elif [ $rc -eq 0 ]; then
    echo "exit 0: $(head -n 1 <<<"$stdout" | cut -c1-70)"
  elif [ $rc -eq 2 ] && [[ "$first" == error:* ]] && { [ "$lines" -eq 1 ] || grep -q -e "^Usage:" -e "For more information, try" "$err"; }; then
    # One sentence, or clap's: its sentence, then a tip and the usage.
    echo "refused, one sentence: $(cut -c8-140 <<<"$first")"
  elif [ $rc -eq 2 ]; then
    echo "refused ($lines lines): $(cut -c1-60 <<<"$first")"
  else
    echo "exit $rc: $(cut -c1-60 <<<"$first")"
  fi
  rm -f "$err"
}
