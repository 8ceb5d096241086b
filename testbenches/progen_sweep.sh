#!/usr/bin/env bash
# Random programs on the RTL SM through the CLI, with the global-memory
# settings of tests/sm_progen.rs (latency by seed mod 4: 0 and 1 give
# 4 + seed mod 13 core cycles, 2 gives 40 + seed mod 61, 3 gives 300;
# 64 bytes per core cycle; out of order for odd seeds): the same check as
# `SM_PROGEN_N=.. SM_PROGEN_FROM=.. cargo test --release --test sm_progen
# -- --ignored`, one preset per process, without a test build.
#
# usage: testbenches/progen_sweep.sh PRESET FROM TO [SMRTL]
#   (SMRTL defaults to target/release/smrtl; work files in waves/progen_PRESET)
# Prints one line per seed and a summary; a failing seed keeps its program,
# its input image and the error.
set -u
P=$1; A=$2; B=$3
S=$(realpath "${4:-target/release/smrtl}")
D=waves/progen_$P; mkdir -p "$D"; cd "$D" || exit 1
pass=0; fail=0; cyc=0; chk=0; t0=$(date +%s)
for ((s = A; s < B; s++)); do
  if ! "$S" progen --config "$P" --seed $s --out p$s.sasm >/dev/null; then
    echo "seed $s: progen failed"; fail=$((fail + 1)); continue
  fi
  # The file's second line is the `smrtl run` command of the launch.
  args=$(sed -n 2p p$s.sasm | sed 's/^; smrtl run //')
  case $((s % 4)) in
    0 | 1) lat=$((4 + s % 13)) ;;
    2) lat=$((40 + s % 61)) ;;
    *) lat=300 ;;
  esac
  ooo=""; ((s % 2 == 1)) && ooo="--gmem-ooo-seed $s"
  # shellcheck disable=SC2086
  if out=$("$S" run $args --rtl --max-cycles 2000000 --gmem-latency $lat --gmem-bandwidth 64 $ooo 2>&1); then
    c=$(grep -o 'cycles: [0-9]* core' <<<"$out" | grep -o '[0-9]*')
    k=$(grep -o 'checked against the golden model: [0-9]*' <<<"$out" | grep -o '[0-9]*$')
    pass=$((pass + 1)); cyc=$((cyc + c)); chk=$((chk + k))
    echo "seed $s ok cycles $c checked $k"
    rm -f p$s.sasm p$s.gmem.bin out.bin
  else
    fail=$((fail + 1))
    echo "$out" > p$s.err
    echo "seed $s FAILED ($P, --gmem-latency $lat $ooo): $(tail -n 2 <<<"$out" | tr '\n' ' ')"
  fi
done
echo "$P seeds $A..$B: $pass passed, $fail failed; $cyc core cycles, $chk warp instructions checked ($(($(date +%s) - t0)) s)"
