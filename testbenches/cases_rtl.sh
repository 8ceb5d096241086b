#!/usr/bin/env bash
# Every benchmark kernel case of a preset on the RTL SM, lock-step against
# the golden model, with the final image compared to the host reference:
# `smrtl kernels --config PRESET --cases DIR` writes each case's inputs,
# expected image and `smrtl run` command; each command then runs with
# `--rtl`. Cases the preset cannot run are skipped and listed (FMAD
# kernels on an FFMA preset and FFMA kernels on an FMAD preset: error 1 by
# design, docs/sp.md; blocks over max_threads, 512 on tesla/gt200).
#
# usage: [EXCLUDE=RE] [RUN_ARGS="..."] testbenches/cases_rtl.sh PRESET DIR [SMRTL] [FILTER]
#   FILTER: a grep -E pattern on case file names (default: all)
#   EXCLUDE: a grep -E pattern of case file names to leave out (e.g.
#     'conv[a-z0-9_]*-[a-z0-9]*-0\.cmd' for the 512 x 512 convolutions)
#   RUN_ARGS: more `smrtl run` options for every case, e.g. the memory
#     model: "--gmem-latency 300 --gmem-ooo-seed 7"
set -u
P=$1; D=$(realpath -m "$2"); S=$(realpath "${3:-target/release/smrtl}"); F=${4:-.}
X=${EXCLUDE:-^$}; A=${RUN_ARGS:-}
ROOT=$(realpath "$(dirname "$0")/..")
mkdir -p "$D"
# `smrtl kernels` writes no case the preset cannot run (an instruction it
# lacks, a block over max_threads) and lists it as SKIP.
rm -f "$D"/*-"$P"-*.cmd
k=$("$S" kernels --config "$P" --cases "$D") || { echo "$k"; echo "smrtl kernels failed"; exit 1; }
skip=$(grep -c ' SKIP ' <<<"$k")
grep ' SKIP ' <<<"$k" | sed 's/  */ /g'
pass=0; fail=0; cyc=0; t0=$(date +%s)
for c in $(ls "$D"/*-"$P"-*.cmd | grep -E "$F" | grep -v -E "$X"); do
  n=$(basename "$c" .cmd)
  cmd=$(cat "$c")
  t=$(date +%s)
  # shellcheck disable=SC2086
  out=$(cd "$ROOT" && "$S" ${cmd#smrtl } --rtl --max-cycles 100000000 $A 2>&1)
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$D/$n.out.bin" "$D/$n.expected.bin"; then
    k=$(grep -o 'cycles: [0-9]* core' <<<"$out" | grep -o '[0-9]*')
    u=$(grep -o 'warning: [0-9]* lanes' <<<"$out" | grep -o '[0-9]*')
    echo "$n: ok, $k core cycles, $(grep -o 'checked against the golden model: [0-9]*' <<<"$out" | grep -o '[0-9]*$') checked${u:+, $u lanes read never-written shared words}, $(($(date +%s) - t)) s"
    pass=$((pass + 1)); cyc=$((cyc + k))
  else
    echo "$out" > "$D/$n.err"
    echo "$n: FAILED (rc $rc): $(grep -m1 -E 'diverg|error|Error' <<<"$out")"; fail=$((fail + 1))
  fi
done
echo "$P: $pass passed, $fail failed, $skip skipped; $cyc core cycles ($(($(date +%s) - t0)) s)"
