#!/usr/bin/env bash
# Record what the RTL SM does, so a refactor can show it changed nothing:
# for each preset, every benchmark kernel case (`smrtl kernels --cases`)
# and random programs (`smrtl progen`, the memory options of
# progen_sweep.sh) run on the RTL SM lock-step against the golden model;
# each run leaves its report (core cycles, issued/retired/checked counts,
# stall causes, unit use, conflicts, memory traffic) and the SHA-256 of its
# final memory image in DIR/PRESET/NAME.txt; `smrtl calibrate` tables go
# to DIR/PRESET/calibrate.txt. Compare two recordings with --compare.
#
# usage: testbenches/behaviour.sh DIR [PRESETS] [PROGRAMS] [SMRTL]
#          PRESETS  comma list (default tesla,gt200,fermi)
#          PROGRAMS random programs per preset (default 200, seeds 0..N-1)
#          LARGE=1  also the 512x512 convolution cases (10-35 min each)
#        testbenches/behaviour.sh --compare DIR_BEFORE DIR_AFTER
# A run that fails (divergence, SM error, image unlike the host reference)
# is recorded as such: the comparison then shows whether it failed the
# same way before.
set -u
if [ "${1:-}" = "--compare" ]; then
  A=$(realpath "$2"); B=$(realpath "$3"); same=0; diff=0; only=0
  while IFS= read -r f; do
    if [ ! -f "$B/$f" ]; then echo "only before: $f"; only=$((only + 1))
    elif cmp -s "$A/$f" "$B/$f"; then same=$((same + 1))
    else echo "DIFFERS: $f"; diff -u "$A/$f" "$B/$f" | sed -n 3,12p; diff=$((diff + 1)); fi
  done < <(cd "$A" && find . -name '*.txt' | sort)
  n=$(cd "$B" && find . -name '*.txt' | while read -r f; do [ -f "$A/$f" ] || echo "$f"; done | wc -l)
  [ "$n" -gt 0 ] && echo "$n records only after"
  echo "behaviour: $same equal, $diff differ, $only missing after, $n new"
  [ $diff -eq 0 ] && [ $only -eq 0 ]
  exit
fi
D=$(realpath -m "$1"); PS=${2:-tesla,gt200,fermi}; N=${3:-200}
S=$(realpath "${4:-target/release/smrtl}")
ROOT=$(realpath "$(dirname "$0")/..")
t0=$(date +%s)
# The report without the lines that are not behaviour (engine name, wall
# time), then the image hash.
record() { # OUT REPORT IMAGE RC
  { echo "rc $4"
    grep -v -E '^ *(engine|time|wall)' "$2" 2>/dev/null
    echo "image $(sha256sum < "$3" 2>/dev/null | cut -c1-64)"; } > "$1"
}
for P in ${PS//,/ }; do
  O=$D/$P; W=$D/work/$P; mkdir -p "$O" "$W"
  k=$("$S" kernels --config "$P" --cases "$W") || { echo "$k"; exit 1; }
  for c in "$W"/*-"$P"-*.cmd; do
    n=$(basename "$c" .cmd)
    if [ "${LARGE:-0}" != 1 ] && grep -q -E -- '--param W=(512|0x200) ' "$c"; then continue; fi
    cmd=$(cat "$c")
    rm -f "$W/$n.out.bin" "$W/$n.report"
    # shellcheck disable=SC2086
    (cd "$ROOT" && "$S" ${cmd#smrtl } --rtl --max-cycles 100000000 --report "$W/$n.report" >/dev/null 2>&1)
    rc=$?
    cmp -s "$W/$n.out.bin" "$W/$n.expected.bin" || rc="$rc image-differs-from-host-reference"
    record "$O/$n.txt" "$W/$n.report" "$W/$n.out.bin" "$rc"
  done
  for ((s = 0; s < N; s++)); do
    "$S" progen --config "$P" --seed $s --out "$W/p$s.sasm" >/dev/null || { echo "progen $s failed"; continue; }
    args=$(sed -n 2p "$W/p$s.sasm" | sed 's/^; smrtl run //')
    lat=$((4 + s % 13)); ooo=""; ((s % 2 == 1)) && ooo="--gmem-ooo-seed $s"
    # shellcheck disable=SC2086
    (cd "$W" && "$S" run $args --rtl --max-cycles 2000000 --gmem-latency $lat \
      --gmem-bandwidth 64 $ooo --report "p$s.report" >/dev/null 2>&1)
    rc=$?
    record "$O/progen_$s.txt" "$W/p$s.report" "$W/out.bin" "$rc"
    rm -f "$W/out.bin"
  done
  if [ "$P" != tesla ]; then
    "$S" calibrate --config "$P" > "$O/calibrate.txt" 2>&1
  fi
  echo "$P: $(ls "$O" | wc -l) records, $(grep -L '^rc 0$' "$O"/*.txt | wc -l) not rc 0 ($(($(date +%s) - t0)) s)"
done
