#!/usr/bin/env bash
# Yosys `synth_xilinx` totals of the whole SM of a preset, one block at a
# time: each block the SM top instantiates is synthesized on its own (with
# its sub-blocks), and the top's own logic with the blocks as black boxes;
# the totals are the sums (a block instantiated twice counts twice).
# Every block's `stat` is kept in OUT, and a block whose stat is already
# there is not run again, so a long synthesis can be resumed. Blocks run JOBS at a time (default 1), each under `timeout`
# (default 4 h).
#
# usage: testbenches/synth_sm.sh PRESET OUT [JOBS] [TIMEOUT]
#   PRESET: gt200 | fermi | tesla  (module sm_PRESET in rtl/)
# Prints one line per block (LUT FF LUTRAM SRL BRAM36-equivalents DSP INV,
# Yosys seconds) and the totals; `OUT/summary.txt` keeps them. LUT counts
# LUT1..LUT6 only: Yosys 0.23 maps each flip-flop with the active-low
# asynchronous reset (`rst_ni`) to an FDCE/FDPE with its own INV cell on
# the clear/preset pin, which a Xilinx flip-flop absorbs (its pin
# inversion), so the INV cells (about one per flip-flop) are listed in a
# column of their own and kept out of the LUT total.
set -u
P=$1; OUT=$(realpath -m "$2"); JOBS=${3:-1}; TMO=${4:-4h}
RTL=$(realpath "$(dirname "$0")/../rtl")
TOP=sm_$P
mkdir -p "$OUT"
[ -f "$RTL/$TOP.v" ] || { echo "no $RTL/$TOP.v" >&2; exit 2; }
# The blocks the top instantiates: "module u_name (" lines of the top.
mapfile -t BLOCKS < <(grep -E '^\s+[a-z][a-z0-9_]* u_[a-z0-9_]+ *\($' "$RTL/$TOP.v" | awk '{print $1}' | sort -u)
deps() { # a module and every module below it (one file per module in rtl/)
  echo "$1"
  local c
  for c in $(grep -E '^\s+[a-z][a-z0-9_]* u_[a-z0-9_]+ *\($' "$RTL/$1.v" | awk '{print $1}' | sort -u); do
    [ -f "$RTL/$c.v" ] && deps "$c"
  done
}
run_block() { # module, and whether it is the top (children as black boxes)
  local m=$1 top=$2 f="$OUT/$1.stat"
  [ -s "$f" ] && grep -q "Number of cells" "$f" && return 0
  local rd="read_verilog"
  local files=""
  if [ "$top" = 1 ]; then
    rd="read_verilog $RTL/$TOP.v;"
    for b in "${BLOCKS[@]}"; do rd="$rd read_verilog -lib $RTL/$b.v;"; done
  else
    # The block's file and the files of the modules below it.
    rd=""
    for v in $(deps "$m" | sort -u); do rd="$rd read_verilog $RTL/$v.v;"; done
  fi
  local t0; t0=$(date +%s)
  timeout "$TMO" yosys -q -l "$OUT/$m.log" -p "$rd hierarchy -top $m; synth_xilinx -top $m; flatten; tee -o $f.tmp stat" >/dev/null 2>&1
  local rc=$?
  if [ $rc -eq 0 ]; then
    mv "$f.tmp" "$f"; echo "seconds $(($(date +%s) - t0))" >> "$f"
  else
    echo "$m: yosys failed or timed out (rc $rc, $(($(date +%s) - t0)) s); log $OUT/$m.log" >&2
  fi
}
export -f run_block deps; export OUT RTL TOP TMO
export BLOCKS_STR="${BLOCKS[*]}"
run_one() { IFS=' ' read -r -a BLOCKS <<<"$BLOCKS_STR"; run_block "$1" "$2"; }
export -f run_one
# Smallest first (bytes of Verilog of the block and the modules below
# it): a run stopped early has as many blocks done as it could.
size() { local t=0 v; for v in $(deps "$1" | sort -u); do t=$((t + $(wc -c <"$RTL/$v.v"))); done; echo "$t"; }
[ "$JOBS" -gt 0 ] && { for b in "${BLOCKS[@]}"; do echo "$(size "$b") $b 0"; done; echo "$(wc -c <"$RTL/$TOP.v") $TOP 1"; } |
  sort -n | cut -d' ' -f2- |
  xargs -P "$JOBS" -L 1 bash -c 'run_one "$0" "$1"'
python3 - "$OUT" "$TOP" "$RTL" "${BLOCKS[@]}" <<'PY' | tee "$OUT/summary.txt"
import re, sys, os
out, top, rtl, blocks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# Instances of each block in the top (fermi has two SP groups): the
# totals count each instance.
topv = open(os.path.join(rtl, top + ".v")).read()
inst = {b: len(re.findall(r"^\s+" + re.escape(b) + r" u_[a-z0-9_]+ *\($", topv, re.M)) for b in blocks}
def counts(m):
    f = os.path.join(out, m + ".stat")
    if not os.path.exists(f):
        return None
    c = {}; secs = None
    for line in open(f):
        r = re.match(r"\s+([A-Z][A-Z0-9_]*)\s+(\d+)\s*$", line)
        if r: c[r.group(1)] = c.get(r.group(1), 0) + int(r.group(2))
        r = re.match(r"seconds (\d+)", line)
        if r: secs = int(r.group(1))
    g = lambda pre: sum(v for k, v in c.items() if any(k.startswith(p) for p in pre))
    lut = g(["LUT"]); inv = c.get("INV", 0); ff = g(["FD"]); lutram = g(["RAM16", "RAM32", "RAM64", "RAM128", "RAM256"])
    srl = g(["SRL"]); bram = c.get("RAMB36E1", 0) + 0.5 * c.get("RAMB18E1", 0); dsp = g(["DSP48"])
    return [lut, ff, lutram, srl, bram, dsp, inv, secs]
tot = [0] * 7; missing = []
print(f"{'block (x instances)':40} {'LUT':>8} {'FF':>8} {'LUTRAM':>7} {'SRL':>6} {'BRAM36':>7} {'DSP':>5} {'INV':>7} {'s':>7}")
for m in blocks + [top]:
    c = counts(m)
    if c is None:
        missing.append(m); print(f"{m:40} (not synthesized)"); continue
    k = inst.get(m, 1)
    for i in range(7): tot[i] += k * c[i]
    print(f"{m + (' (top glue)' if m == top else '') + (f' x{k}' if k > 1 else ''):40} {c[0]:>8} {c[1]:>8} {c[2]:>7} {c[3]:>6} {c[4]:>7} {c[5]:>5} {c[6]:>7} {c[7] if c[7] is not None else '?':>7}")
print(f"{'total' + (' (INCOMPLETE: ' + ' '.join(missing) + ')' if missing else ''):40} {tot[0]:>8} {tot[1]:>8} {tot[2]:>7} {tot[3]:>6} {tot[4]:>7} {tot[5]:>5} {tot[6]:>7}")
PY
