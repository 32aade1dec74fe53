#!/usr/bin/env bash
# End-to-end tests of the collplan CLI: exit codes, messages, files written
# whole or not at all, machine-readable output. Usage: cli_test.sh COLLPLAN
set -u
COLLPLAN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

# expect CODE DESCRIPTION -- COMMAND...: runs COMMAND, checks its exit code.
expect() {
  local code=$1 what=$2
  shift 3
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  if [ "$got" -eq "$code" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what: exit $got, expected $code"
    sed 's/^/  | /' "$WORK/err" | head -5
  fi
}
# check DESCRIPTION COMMAND...: a condition that must hold.
check() {
  local what=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what"
  fi
}
json_get() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

expect 0 "version" -- "$COLLPLAN" --version
check "version names collplan" grep -q collplan "$WORK/out"
expect 2 "no subcommand" -- "$COLLPLAN"
expect 2 "unknown flag" -- "$COLLPLAN" compile --ranks 4 --frobnicate
check "unknown flag shows the compile help" grep -q -- "--collective" "$WORK/err"
expect 2 "P = 0" -- "$COLLPLAN" compile --ranks 0
check "P = 0 is named" grep -q "at least 1" "$WORK/err"
expect 2 "unknown algorithm" -- "$COLLPLAN" compile --ranks 4 --algorithm nope
check "unknown algorithm lists the known ones" grep -q "ring" "$WORK/err"
expect 2 "unknown collective" -- "$COLLPLAN" compile --ranks 4 --collective scan
expect 2 "bad byte size" -- "$COLLPLAN" compile --ranks 4 --bytes 12Q
# Byte sizes: SI and IEC units, case-sensitive.
expect 0 "SI byte size" -- "$COLLPLAN" compile --ranks 4 --algorithm ring \
  --bytes 1MB --format json
check "1MB is 10^6 bytes" test "$(json_get "$WORK/out" "d['bytes']")" = 1000000
expect 0 "IEC byte size" -- "$COLLPLAN" compile --ranks 4 --algorithm ring \
  --bytes 2KiB --format json
check "2KiB is 2048 bytes" test "$(json_get "$WORK/out" "d['bytes']")" = 2048
expect 0 "kB byte size" -- "$COLLPLAN" compile --ranks 4 --bytes 3kB -q
expect 2 "ambiguous byte size" -- "$COLLPLAN" compile --ranks 4 --bytes 1M
check "the units are listed" grep -q "KiB" "$WORK/err"
expect 2 "wrong-case byte size" -- "$COLLPLAN" compile --ranks 4 --bytes 1mb
expect 2 "overflowing byte size" -- "$COLLPLAN" compile --ranks 4 \
  --bytes 18446744073709551615GiB
expect 2 "bad topology" -- "$COLLPLAN" compile --topology torus:4x0
expect 0 "a 16-dimension torus compiles and loads" -- "$COLLPLAN" compile \
  --topology torus:$(printf '2x%.0s' $(seq 15))2 --algorithm recursive-doubling \
  -q -o "$WORK/torus16.cplan"
expect 0 "the 16-dimension plan loads" -- "$COLLPLAN" verify "$WORK/torus16.cplan"
expect 2 "a 17-dimension torus is refused" -- "$COLLPLAN" compile \
  --topology torus:$(printf '2x%.0s' $(seq 16))2
check "the dimension limit is named" grep -q "at most 16 dimensions" "$WORK/err"
expect 2 "contradicting ppn" -- "$COLLPLAN" compile --topology nodes:4x4 --ppn 2
expect 2 "NaN cost parameter" -- "$COLLPLAN" compile --ranks 4 --alpha nan
check "NaN is named" grep -q "finite" "$WORK/err"
expect 2 "NaN intra-node cost parameter" -- "$COLLPLAN" compile --ranks 4 \
  --beta-intra nan
expect 2 "hex cost parameter" -- "$COLLPLAN" compile --ranks 4 --alpha 0x10
check "hex is refused as not decimal" grep -q "decimal" "$WORK/err"
expect 2 "infinite cost parameter" -- "$COLLPLAN" compile --ranks 4 --beta inf
expect 2 "negative cost parameter" -- "$COLLPLAN" compile --ranks 4 --gamma -1e-9
expect 0 "scientific cost parameters" -- "$COLLPLAN" compile --ranks 4 \
  --alpha 2E-6 --beta .5e-10 --gamma 1. -q
expect 3 "a plan too large to build" -- timeout 60 "$COLLPLAN" compile \
  --ranks 100000 --algorithm ring
check "the size is named" grep -q "operations" "$WORK/err"
# P = 2^24 (the rank limit) is refused from rank 0's op count, fast and in
# bounded memory; past the limit, or a product past 32 bits, is a usage error.
expect 3 "P = 2^24 with auto is refused quickly" -- timeout 20 "$COLLPLAN" \
  compile --topology torus:4x4 --ppn 1048576
check "the limit is named" grep -q "more than the limit" "$WORK/err"
expect 3 "P = 2^24 ring is refused quickly" -- timeout 20 "$COLLPLAN" \
  compile --topology torus:4x4 --ppn 1048576 --algorithm ring
# Every family stops building once rank 0 is past its budget, and a
# composed plan's stages are sized from their rank 0 before all their ranks
# are built (bucket and smp used to take a minute each here).
expect 3 "P = 2^24 flat with auto is refused quickly" -- timeout 20 \
  "$COLLPLAN" compile --ranks 16777216 --no-verify -o "$WORK/huge.cplan"
check "no plan file is left" test ! -e "$WORK/huge.cplan"
for A in bucket smp; do
  expect 3 "P = 2^24 $A is refused quickly" -- timeout 20 "$COLLPLAN" \
    compile --ranks 16777216 --algorithm $A
  check "the $A limit is named" grep -q "more than the limit" "$WORK/err"
done
expect 2 "nodes x ppn past the rank limit" -- "$COLLPLAN" compile \
  --topology torus:4x4 --ppn 1048577
check "the rank limit is named" grep -q "more than 16777216 ranks" "$WORK/err"
expect 2 "ppn past 32 bits" -- "$COLLPLAN" compile --topology torus:2 \
  --ppn 4294967296
expect 3 "weights whose sum overflows" -- "$COLLPLAN" compile --ranks 3 \
  --collective allgatherv --weights 18446744073709551615,18446744073709551615,1 \
  -o "$WORK/huge-weights.yaml"
check "nothing written for overflowing weights" test ! -e "$WORK/huge-weights.yaml"
# Weights files: one count per line or any separators; bounded in size.
printf '1\n2\n3\n4\n' >"$WORK/w-lines.txt"
expect 0 "weights one per line" -- "$COLLPLAN" compile --ranks 4 \
  --collective allgatherv --weights-file "$WORK/w-lines.txt" -q
printf '1, 2\t3\r\n 4\n' >"$WORK/w-mixed.txt"
expect 0 "weights with mixed separators" -- "$COLLPLAN" compile --ranks 4 \
  --collective allgatherv --weights-file "$WORK/w-mixed.txt" -q
expect 2 "an endless weights stream" -- timeout 20 "$COLLPLAN" compile \
  --ranks 4 --collective allgatherv --weights-file /dev/zero
check "a device is refused" grep -q "not a regular file" "$WORK/err"
expect 2 "an endless weights pipe" -- timeout 20 sh -c \
  'head -c 1000000 /dev/zero | "$0" compile --ranks 4 --collective allgatherv \
  --weights-file /dev/stdin' "$COLLPLAN"
check "the size limit is named" grep -q "holds more than" "$WORK/err"
head -c 100000 /dev/urandom >"$WORK/w-binary.bin"
expect 2 "a large binary weights file" -- "$COLLPLAN" compile --ranks 4 \
  --collective allgatherv --weights-file "$WORK/w-binary.bin"
# No weights: a plan for equal counts, indexed as such.
mkdir -p "$WORK/agv"
expect 0 "allgatherv without weights" -- "$COLLPLAN" compile --ranks 4 \
  --collective allgatherv -a recursive-doubling -o "$WORK/agv/equal.cplan" -q
expect 0 "index the allgatherv plan for equal counts" -- "$COLLPLAN" index \
  "$WORK/agv/equal.cplan" -q
check "it serves equal counts" grep -q "counts: equal" "$WORK/agv/plans.index"
expect 0 "tune allgatherv (equal counts)" -- "$COLLPLAN" tune --ranks 5 \
  --collective allgatherv --bytes 8:1MiB -o "$WORK/agv-tuned" -q
check "tune's allgatherv serves equal counts" grep -q "counts: equal" \
  "$WORK/agv-tuned/plans.index"
expect 0 "tune's allgatherv plans verify" -- "$COLLPLAN" verify \
  "$WORK"/agv-tuned/allgatherv-p5-*.cplan
# Alltoall: compile (auto), verify, cost, show and run over TCP; alltoallv's
# per-pair weights; the refusals.
expect 0 "alltoall auto at P = 6" -- "$COLLPLAN" compile --ranks 6 \
  --collective alltoall -o "$WORK/a2a.cplan" -q
expect 0 "the alltoall plan verifies" -- "$COLLPLAN" verify "$WORK/a2a.cplan"
expect 0 "cost of the alltoall plan" -- "$COLLPLAN" cost "$WORK/a2a.cplan" \
  --bytes 36KiB
check "cost names the bytes each rank sends" grep -q "bytes sent" "$WORK/out"
expect 0 "show the alltoall plan" -- "$COLLPLAN" show "$WORK/a2a.cplan" --rank 1
expect 0 "run the alltoall plan with --check" -- "$COLLPLAN" run \
  "$WORK/a2a.cplan" --check --bytes 1000 --datatype int16 --iterations 2
expect 0 "alltoallv with per-pair weights" -- "$COLLPLAN" compile --ranks 3 \
  --collective alltoallv -a pairwise --weights 0,5,1,2,0,7,3,3,0 \
  -o "$WORK/a2av.cplan" -q
expect 0 "run the alltoallv plan with --check" -- "$COLLPLAN" run \
  "$WORK/a2av.cplan" --check --bytes 999 --iterations 2
expect 3 "alltoallv with one weight per rank" -- "$COLLPLAN" compile \
  --ranks 3 --collective alltoallv --weights 1,2,3
check "the message asks for P^2 weights" grep -q "pair, 9" "$WORK/err"
expect 3 "pairwise XOR needs a power of two" -- "$COLLPLAN" compile \
  --ranks 6 --collective alltoall -a pairwise --param pairing=xor
expect 0 "export alltoall to MSCCL XML" -- "$COLLPLAN" export \
  "$WORK/a2a.cplan" -o "$WORK/a2a.xml"
check "alltoall is exported out of place" grep -q 'coll="alltoall" inplace="0"' \
  "$WORK/a2a.xml"
expect 0 "the exported alltoall imports and verifies" -- "$COLLPLAN" verify \
  "$WORK/a2a.xml"
expect 3 "alltoallv of unequal counts has no MSCCL form" -- "$COLLPLAN" \
  export "$WORK/a2av.cplan" -o "$WORK/a2av.xml"
# --show: the rules in the interposer's order, with why; JSON alike.
cp "$WORK/agv/equal.cplan" "$WORK/agv/allgatherv-p4-0-inf.cplan"
expect 0 "index --show" -- "$COLLPLAN" index --show "$WORK/agv"
check "--show lists the indexed plan with its counts rule first" \
  sh -c "grep -A1 'allgatherv' '$WORK/out' | head -1 | grep -q 'equal.cplan'"
check "--show names the file listed by its name" \
  grep -q "allgatherv-p4-0-inf.cplan (recursive-doubling) \[by its name\]\|allgatherv-p4-0-inf.cplan \[by its name\]" "$WORK/out"
expect 0 "index --show --format json" -- "$COLLPLAN" index --show \
  "$WORK/agv" --format json
check "the JSON has both rules, the index's first" test "$(json_get "$WORK/out" \
  "[r.get('file') for r in d['rules']]")" = "['equal.cplan', 'allgatherv-p4-0-inf.cplan']"
expect 2 "index without plans" -- "$COLLPLAN" index
expect 3 "unsupported collective" -- "$COLLPLAN" compile --ranks 4 \
  --collective broadcast --algorithm ring
expect 3 "unknown parameter" -- "$COLLPLAN" compile --ranks 4 --algorithm ring \
  --param frob=1
# --param with auto: unknown to every family is a usage error; known to some,
# applied to those and named by --explain.
expect 2 "auto with a parameter no family knows" -- "$COLLPLAN" compile \
  --ranks 4 --param frob=1
check "the parameter is named" grep -q "frob" "$WORK/err"
expect 2 "auto with a parameter only other collectives' families know" -- \
  "$COLLPLAN" compile --ranks 4 --collective broadcast --param r=1
expect 0 "auto with a parameter some families know" -- "$COLLPLAN" compile \
  --ranks 8 --param r=1 --explain
check "explain names the families that took it" grep -q \
  "param r taken by permutation" "$WORK/out"
expect 2 "unknown output extension" -- "$COLLPLAN" compile --ranks 4 -o "$WORK/x.txt"
check "nothing written for a bad extension" test ! -e "$WORK/x.txt"

# A plan written, read back and verified in every format.
for ext in yaml json cplan; do
  expect 0 "compile ring .$ext" -- "$COLLPLAN" compile --ranks 6 --algorithm ring \
    -o "$WORK/ring.$ext"
  expect 0 "verify ring .$ext" -- "$COLLPLAN" verify "$WORK/ring.$ext"
  expect 0 "show ring .$ext" -- "$COLLPLAN" show "$WORK/ring.$ext" --rank 2
  check "show lists rank 2's rounds" grep -q "rank 2" "$WORK/out"
done
check "formats agree" cmp -s <("$COLLPLAN" show "$WORK/ring.yaml") \
  <("$COLLPLAN" show "$WORK/ring.cplan")
expect 0 "deterministic output" -- "$COLLPLAN" compile --ranks 6 --algorithm ring \
  -o "$WORK/ring2.yaml"
check "same inputs give byte-identical plans" cmp -s "$WORK/ring.yaml" "$WORK/ring2.yaml"

# verify: JSON output, exit 1 for an invalid plan, 2 for an unreadable one.
expect 0 "verify json" -- "$COLLPLAN" verify --format json "$WORK/ring.yaml"
check "verify json says valid" test "$(json_get "$WORK/out" "d[0]['valid']")" = True
check "verify json has stats" test "$(json_get "$WORK/out" "d[0]['stats']['ranks']")" = 6
head -c 200 "$WORK/ring.cplan" >"$WORK/truncated.cplan"
expect 2 "verify a truncated file" -- "$COLLPLAN" verify "$WORK/truncated.cplan"
expect 2 "verify a missing file" -- "$COLLPLAN" verify "$WORK/missing.yaml"
check "the missing file is named" grep -q "missing.yaml" "$WORK/out"
# A .cplan stores its hash: an edited byte that still decodes is caught.
# The last byte is the last rank's last block-range length (LEB128, < 0x80).
python3 - "$WORK/ring.cplan" "$WORK/edited.cplan" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
assert data[-1] == 0
data[-1] ^= 0x01
open(sys.argv[2], "wb").write(data)
PY
expect 2 "verify an edited .cplan" -- "$COLLPLAN" verify "$WORK/edited.cplan"
check "the edited program is named" grep -q "program does not match its hash in the table" "$WORK/out"
# A version 1 .cplan (byte 8) is refused with a request to recompile.
python3 - "$WORK/ring.cplan" "$WORK/old.cplan" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
assert data[8] == 3
data[8] = 1
open(sys.argv[2], "wb").write(data)
PY
expect 2 "verify a version 1 .cplan" -- "$COLLPLAN" verify "$WORK/old.cplan"
check "version 1 asks to recompile" grep -q "version 1 has no rank offset table.*recompile" "$WORK/out"
# Drop rank 0's last round from the JSON form: structurally sound, but the
# collective is broken, so the plan is invalid (exit 1), not unreadable.
python3 - "$WORK/ring.json" "$WORK/broken.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
progs = plan["programs"]
progs[0]["rounds"].pop()
json.dump(plan, open(sys.argv[2], "w"))
PY
expect 1 "verify a broken plan" -- "$COLLPLAN" verify --format json "$WORK/broken.json"
check "broken plan: errors are located" test \
  "$(json_get "$WORK/out" "len(d[0]['errors']) > 0 and d[0]['valid'] == False")" = True
expect 1 "cost refuses a plan verify rejects" -- "$COLLPLAN" cost "$WORK/broken.json"
check "cost names the failed verification" grep -q "failed verification" "$WORK/err"
expect 0 "cost --no-verify prices it anyway" -- "$COLLPLAN" cost \
  "$WORK/broken.json" --no-verify
expect 2 "unreadable beats invalid" -- "$COLLPLAN" verify "$WORK/broken.json" \
  "$WORK/missing.yaml"
# An MSCCL file that parses but cannot work (its first send made a receive)
# is invalid, not unreadable.
sed '0,/type="s"/s//type="r"/' \
  "$(dirname "$0")/../fixtures/msccl/allreduce-ring-4r-1ch-1i-Simple.xml" \
  >"$WORK/broken-msccl.xml"
expect 1 "verify a broken MSCCL file" -- "$COLLPLAN" verify "$WORK/broken-msccl.xml"
check "the broken MSCCL file is invalid" grep -q "broken-msccl.xml: INVALID" "$WORK/out"
check "the step is named" grep -q "gpu 0, threadblock 0, step 1" "$WORK/out"

# Files are written whole or not at all.
expect 4 "unwritable directory" -- "$COLLPLAN" compile --ranks 4 --algorithm ring \
  -o "$WORK/no/such/dir/plan.yaml"
cp "$WORK/ring.yaml" "$WORK/keep.yaml"
expect 3 "non-commutative operator refused" -- "$COLLPLAN" compile --ranks 4 \
  --algorithm ring --non-commutative -o "$WORK/keep.yaml"
check "the refusal says why" grep -q "commutative" "$WORK/err"
# auto selection skips plans that need commutativity instead of failing.
expect 0 "auto with a non-commutative operator" -- "$COLLPLAN" compile --ranks 12 \
  --non-commutative --format json
check "auto picks a plan that keeps rank order" test \
  "$(json_get "$WORK/out" "d['requires_commutative'] == False and d['verified']")" = True
check "a failed compile leaves the old file untouched" cmp -s "$WORK/ring.yaml" "$WORK/keep.yaml"
check "no temporary files left behind" test "$(ls "$WORK" | grep -c tmp)" = 0

# compile and cost in JSON.
expect 0 "compile json summary" -- "$COLLPLAN" compile --ranks 12 --format json
check "auto picks a verified plan no faster than the bound" test \
  "$(json_get "$WORK/out" "d['verified'] and d['predicted_time'] >= d['lower_bound']")" = True
expect 0 "cost json" -- "$COLLPLAN" cost "$WORK/ring.yaml" --bytes 1MiB --per-round --format json
check "cost has one entry per round" test \
  "$(json_get "$WORK/out" "len(d['per_round']) == d['rounds'] == 10")" = True
# Size ranges (docs/cost-model.md, "Large messages"): the ring of 6 at
# 1 MiB sends 60 messages of about 171 KiB; above 100000 B at no cost, the
# plan costs nothing (gamma 0), and none is medium.
expect 0 "cost with a free large range" -- "$COLLPLAN" cost "$WORK/ring.yaml" \
  --bytes 1MiB --gamma 0 --large-message-bytes 100000 --alpha-large 0 \
  --beta-large 0 --format json
check "every message large, priced at 0" test "$(json_get "$WORK/out" \
  "(d['large_messages'], d['medium_messages'], d['predicted_time']) == (60, 0, 0)")" = True
expect 2 "a threshold with a unit" -- "$COLLPLAN" cost "$WORK/ring.yaml" \
  --large-message-bytes 4KiB
# The torus congestion model and the node counts (docs/cost-model.md, "Hops
# and loads of the standard patterns": recursive doubling on a 1-D torus of
# 16 has hops 1,2,4,8 and busiest links 1,2,4,4).
expect 0 "compile on a torus with the torus cost flags" -- "$COLLPLAN" compile \
  --topology torus:16 --algorithm recursive-doubling --alpha-hop 0 \
  --injection-bandwidth 1e10 -o "$WORK/rd16.yaml"
expect 0 "cost json on a torus" -- "$COLLPLAN" cost "$WORK/rd16.yaml" \
  --per-round --format json --alpha-hop 0
check "per-round hops and link loads" test "$(json_get "$WORK/out" \
  "[r['hops'] for r in d['per_round']] == [1, 2, 4, 8] and [r['max_link_load'] / r['max_message_bytes'] for r in d['per_round']] == [1, 2, 4, 4]")" = True
check "deficiencies and node counts" test "$(json_get "$WORK/out" \
  "(d['latency_deficiency'], d['bandwidth_deficiency'], d['congestion_deficiency'], d['inter_node_messages'], d['intra_node_messages'], d['max_inter_node_messages_per_rank']) == (1, 4, 2.75, 64, 0, 4)")" = True
expect 0 "cost text on a torus" -- "$COLLPLAN" cost "$WORK/rd16.yaml" --per-round
check "text shows the deficiencies" grep -q "congestion 2.7500" "$WORK/out"
expect 2 "negative injection bandwidth" -- "$COLLPLAN" cost "$WORK/rd16.yaml" \
  --injection-bandwidth -1
expect 0 "list json" -- "$COLLPLAN" list --format json
check "list names ring with its collectives" test \
  "$(json_get "$WORK/out" "'reduce-scatter' in [a for a in d if a['name']=='ring'][0]['collectives']")" = True
check "list json shows swing's restrictions" test \
  "$(json_get "$WORK/out" "[r['requires'] for r in [a for a in d if a['name']=='swing'][0]['restrictions']] == ['commutative', 'one-rank-per-torus-node']")" = True
check "list json shows the collectives circulant's parameters apply to" test \
  "$(json_get "$WORK/out" "[p['collectives'] for p in [a for a in d if a['name']=='circulant'][0]['params']] == [['broadcast', 'reduce', 'allgatherv', 'allreduce'], ['allreduce'], ['allreduce']]")" = True
expect 0 "list text" -- "$COLLPLAN" list
check "list shows the restrictions" grep -q \
  "requires:    commutative, power-of-two-ranks (when group=xor)" "$WORK/out"
check "list shows which collectives a parameter applies to" grep -q \
  -- "--param blocks=an integer >= 1 (broadcast, reduce, allgatherv, allreduce only)" "$WORK/out"
expect 3 "a declared restriction refuses before prepare" -- "$COLLPLAN" \
  compile --topology torus:4x4 --ppn 2 --algorithm swing -o "$WORK/refused.yaml"
check "the refusal names the restriction and the way out" grep -q \
  "one-rank-per-torus-node.*smp-rsag" "$WORK/err"

# Hostile sizes (issue 26): each refused fast and in bounded memory, with a
# message naming the limit. `bounded` runs a command under a memory and a
# time limit that the code before these fixes broke (an abort after seconds
# to minutes, up to 24 GB).
bounded() {
  local kib=$1 seconds=$2
  shift 2
  (ulimit -v "$kib" && exec timeout "$seconds" "$@")
}
# P = 2^k - 1: rank 0 of recursive doubling only folds in, so rank 0 x P
# says the plan is small; the sample of ranks says it is not.
for algo in recursive-doubling rabenseifner nap smp; do
  expect 3 "$algo at P = 2^24 - 1 is refused" -- bounded 2000000 10 \
    "$COLLPLAN" compile -a $algo --ranks 16777215 --explain -o "$WORK/big.cplan"
  check "$algo at 2^24 - 1 names the limit and the memory" \
    grep -q "operations (for .* GiB (RLIMIT_AS" "$WORK/err"
done
expect 3 "reduce-scatter on torus:4096x4096 is refused" -- bounded 2000000 10 \
  "$COLLPLAN" compile -c reduce-scatter --topology torus:4096x4096
# Past the limit's estimate, memory itself runs out: a message, not an abort
# (the verifier's leaner matcher fits P = 900 in 0.4 GiB since 2026-11-27).
expect 3 "running out of memory is a message" -- bounded 400000 60 \
  "$COLLPLAN" compile -a ring --ranks 1100 -o "$WORK/oom.cplan"
check "out of memory names the limit" grep -q "out of memory: collplan may use 0.4 GiB (RLIMIT_AS" "$WORK/err"
# Swing's odd ring has a buffer per member of its largest group (1024 at
# P = 2049): the verifier sets up only the buffers a chunk touches.
expect 0 "swing at P = 2049 verifies in seconds" -- bounded 4000000 30 \
  "$COLLPLAN" compile -a swing --param variant=bandwidth --ranks 2049 \
  -o "$WORK/swing2049.cplan" -q
# Verification at scale: Rabenseifner at P = 16384 took 7 s of CPU time when
# the replay worked every block of a chunk apart; runs whose blocks are all
# alike take one slot now (about 3 s). CPU time, not wall time, so a loaded
# machine does not fail it.
expect 0 "rabenseifner at P = 16384 verifies in under 5 s of CPU" -- \
  sh -c 'ulimit -t 5 && exec "$@"' sh "$COLLPLAN" compile -a rabenseifner \
  --ranks 16384 -o "$WORK/rabenseifner16384.cplan" -q
# At P = 32768 the allgather's rounds copied every block to every rank and
# chunks shrank with P: 23 s of CPU time on a loaded machine. Runs whose
# blocks differ now share their slots on a whole copy and uniform runs keep
# one slot each, whatever the chunk's length: about 6 s loaded (user +
# system).
expect 0 "rabenseifner at P = 32768 verifies in under 10 s of CPU" -- \
  sh -c 'ulimit -t 10 && exec "$@"' sh "$COLLPLAN" compile -a rabenseifner \
  --ranks 32768 -o "$WORK/rabenseifner32768.cplan" -q
rm -f "$WORK/rabenseifner32768.cplan"

# MSCCL XML at scale: refused up front, or imported in linear time.
python3 - "$WORK/huge.xml" <<'PY'
import sys
N = 1 << 24
step = lambda s, t: (f'<step s="{s}" type="{t}" srcbuf="i" srcoff="0" dstbuf="i" '
                     f'dstoff="0" cnt="{N}" depid="-1" deps="-1" hasdep="0"/>')
gpu = lambda g: (f'<gpu id="{g}" i_chunks="{N}" o_chunks="0" s_chunks="0">'
                 f'<tb id="0" send="{1 - g}" recv="{1 - g}" chan="0">'
                 + step(0, "s") + step(1, "rrc") + '</tb></gpu>')
open(sys.argv[1], "w").write(
    f'<algo name="huge" proto="Simple" nchannels="1" nchunksperloop="{N}" '
    f'ngpus="2" coll="allreduce" inplace="1">' + gpu(0) + gpu(1) + '</algo>')
PY
expect 3 "an MSCCL file moving 2^26 chunks is refused" -- bounded 2000000 10 \
  "$COLLPLAN" import "$WORK/huge.xml"
check "the chunk limit is named" grep -q "at most 2^22" "$WORK/err"
python3 - "$WORK/attrs.xml" <<'PY'
import sys
attrs = " ".join(f'a{i}="1"' for i in range(100000))
open(sys.argv[1], "w").write(
    '<algo name="x" proto="Simple" coll="allreduce" nchannels="1" ngpus="1" '
    f'inplace="1" {attrs}><gpu id="0" i_chunks="1" o_chunks="0" s_chunks="0"/>'
    '</algo>')
PY
expect 2 "an element of 100,000 attributes is refused" -- bounded 2000000 10 \
  "$COLLPLAN" import "$WORK/attrs.xml"
check "the attribute limit is named" grep -q "attrs.xml:1: an element with more than 256 attributes" "$WORK/err"
# 1023 threadblock pairs, each sending 64 messages before receiving: the
# race detector's clocks (2046 entries a message) would take a gigabyte.
python3 - "$WORK/tbs.xml" <<'PY'
import sys
T, S = 1023, 64
out = [f'<algo name="tbs" proto="Simple" nchannels="{T}" nchunksperloop="{T}" '
       'ngpus="2" coll="allreduce" inplace="1">']
step = ('<step s="{}" type="{}" srcbuf="{}" srcoff="{}" dstbuf="{}" dstoff="{}" '
        'cnt="1" depid="-1" deps="-1" hasdep="0"/>')
for g in (0, 1):
    out.append(f'<gpu id="{g}" i_chunks="{T}" o_chunks="0" s_chunks="{T * S}">')
    for k in range(T):
        out.append(f'<tb id="{k}" send="{1 - g}" recv="{1 - g}" chan="{k}">')
        out += [step.format(j, "s", "i", k, "i", k) for j in range(S)]
        out += [step.format(S + j, "r", "s", k * S + j, "s", k * S + j)
                for j in range(S)]
        out.append('</tb>')
    out.append('</gpu>')
open(sys.argv[1], "w").write("\n".join(out + ['</algo>']))
PY
expect 1 "2046 threadblocks import in bounded memory" -- bounded 500000 60 \
  "$COLLPLAN" import "$WORK/tbs.xml"
check "and the file is found wrong, not out of memory" grep -q "lacks rank 0's contribution" "$WORK/out" "$WORK/err"
sed 's#</algo>#</algo><algo name="second"/>#' \
  "$(dirname "$0")/../fixtures/msccl/allreduce-ring-4r-1ch-1i-Simple.xml" \
  >"$WORK/two-roots.xml"
expect 2 "two <algo> roots are refused" -- "$COLLPLAN" import "$WORK/two-roots.xml"
check "the second root is named" grep -q "a second root element" "$WORK/err"
expect 0 "verify reads MSCCL's alltoall" -- \
  "$COLLPLAN" verify "$(dirname "$0")/../fixtures/msccl/alltoall-8n-0-1kb.xml"
sed 's/coll="alltoall"/coll="gather"/' \
  "$(dirname "$0")/../fixtures/msccl/alltoall-8n-0-1kb.xml" >"$WORK/gather.xml"
expect 2 "verify: a file collplan cannot model is unusable input" -- \
  "$COLLPLAN" verify "$WORK/gather.xml"
# collplan's own Rabenseifner at P = 512 (6.7 MB of XML) exports, and so
# imports back, in linear time (31 s before, with a map hashing away the gpu).
expect 0 "compile rabenseifner P = 512" -- "$COLLPLAN" compile -a rabenseifner \
  --ranks 512 -o "$WORK/rab512.cplan" -q
expect 0 "export and import rabenseifner P = 512" -- bounded 2000000 20 \
  "$COLLPLAN" export "$WORK/rab512.cplan" -o "$WORK/rab512.xml" -q
expect 0 "compile recursive doubling P = 4097" -- "$COLLPLAN" compile \
  -a recursive-doubling --ranks 4097 -o "$WORK/rd4097.cplan" -q
expect 3 "export past 4096 ranks cannot be compiled" -- "$COLLPLAN" export \
  "$WORK/rd4097.cplan" -o "$WORK/rd4097.xml"
check "the gpu limit is named" grep -q "at most 4096 gpus" "$WORK/err"
expect 2 "export checks the stamp" -- "$COLLPLAN" export "$WORK/broken.json" \
  -o "$WORK/broken.xml"
python3 - "$WORK/broken.json" "$WORK/broken-unstamped.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
del plan["verified"]
json.dump(plan, open(sys.argv[2], "w"))
PY
expect 1 "export verifies" -- "$COLLPLAN" export \
  "$WORK/broken-unstamped.json" -o "$WORK/broken.xml"
check "nothing is written" test ! -e "$WORK/broken.xml"

# --hostfile: an irregular job (nodes of 4, 2 and 3 ranks), stored in the plan.
printf 'a\na\na\na\nb # two on b\nb\n\nc slots=3\n' >"$WORK/hosts"
expect 0 "nap on a hostfile" -- "$COLLPLAN" compile --hostfile "$WORK/hosts" \
  --algorithm nap -o "$WORK/nap-hosts.cplan" -q
expect 0 "the hostfile's plan verifies" -- "$COLLPLAN" verify "$WORK/nap-hosts.cplan"
expect 0 "cost sees the hostfile's nodes" -- "$COLLPLAN" cost \
  "$WORK/nap-hosts.cplan" --bytes 8 --format json
check "3 nodes of 2 to 4 ranks" test "$(json_get "$WORK/out" \
  "(d['ranks'], d['ranks_per_node'], d['fewest_ranks_per_node'])")" = "(9, 4, 2)"
expect 0 "the hostfile's plan runs" -- "$COLLPLAN" run "$WORK/nap-hosts.cplan" --check
expect 2 "--ranks contradicts the hostfile" -- "$COLLPLAN" compile \
  --hostfile "$WORK/hosts" --ranks 8
check "both counts are named" grep -q "lists 9 ranks, --ranks says 8" "$WORK/err"
expect 2 "--hostfile with --ppn" -- "$COLLPLAN" compile --hostfile "$WORK/hosts" --ppn 2
printf 'a\nb\nc d\n' >"$WORK/bad-hosts"
expect 2 "a bad hostfile line" -- "$COLLPLAN" compile --hostfile "$WORK/bad-hosts"
check "the bad line is named" grep -q "bad-hosts:3:" "$WORK/err"
printf '# nobody\n' >"$WORK/empty-hosts"
expect 2 "a hostfile with no rank" -- "$COLLPLAN" compile --hostfile "$WORK/empty-hosts"
expect 3 "smp refuses nodes of different sizes" -- "$COLLPLAN" compile \
  --hostfile "$WORK/hosts" --algorithm smp
check "smp names nap" grep -q "use nap" "$WORK/err"

# Outputs that are not regular files (issue 26, item 1): a device or a FIFO
# is written into as a shell redirection would, never replaced by a file
# (temp-file-and-rename turned /dev/null into a regular file). The nodes are
# made here, so a regression cannot destroy the real /dev/null.
"$COLLPLAN" compile --ranks 4 -q -o "$WORK/out4.cplan"
if mknod "$WORK/null" c 1 3 2>/dev/null && mknod "$WORK/full" c 1 7 2>/dev/null
then
  ln -s null "$WORK/null.cplan"
  ln -s full "$WORK/full.cplan"
  expect 0 "compile -o a null device" -- "$COLLPLAN" compile --ranks 4 -q \
    -o "$WORK/null.cplan"
  expect 0 "select -o a null device" -- "$COLLPLAN" select --ranks 4 \
    --bytes 8 -o "$WORK/null.cplan"
  expect 0 "export -o a null device" -- "$COLLPLAN" export "$WORK/out4.cplan" \
    --to msccl-xml -o "$WORK/null"
  expect 0 "tune's library files into a null device" -- "$COLLPLAN" tune \
    --ranks 4 --collective allreduce --bytes 8:64 -q \
    --openmpi-rules "$WORK/null" --mpich-json "$WORK/null"
  expect 0 "calibrate -o a null device" -- timeout 60 "$COLLPLAN" calibrate \
    -o "$WORK/null"
  check "the null device is still one" test -c "$WORK/null.cplan" -a -c "$WORK/null"
  # A full device fails with exit 4 (and is still a device).
  expect 4 "compile -o a full device" -- "$COLLPLAN" compile --ranks 4 -q \
    -o "$WORK/full.cplan"
  check "the error names the file" grep -q "No space left" "$WORK/err"
  expect 4 "tune --openmpi-rules into a full device" -- "$COLLPLAN" tune \
    --ranks 4 --collective allreduce --bytes 8:64 -q \
    --openmpi-rules "$WORK/full"
  expect 4 "calibrate -o a full device" -- timeout 60 "$COLLPLAN" calibrate \
    -o "$WORK/full"
  expect 4 "standard output into a full device" -- sh -c \
    '"$0" list >"$1"' "$COLLPLAN" "$WORK/full"
  check "standard output's error is named" grep -q "standard output" "$WORK/err"
  check "the full device is still one" test -c "$WORK/full.cplan"
else
  echo "skipping the device outputs: mknod needs root"
fi
mkfifo "$WORK/fifo.yaml"
expect 4 "a FIFO nobody reads is an error, not a wait" -- timeout 20 \
  "$COLLPLAN" compile --ranks 4 -q -o "$WORK/fifo.yaml"
check "the FIFO's reader is missed" grep -q "no process reads the FIFO" "$WORK/err"
timeout 20 cat "$WORK/fifo.yaml" >"$WORK/from-fifo" &
READER=$!
for _ in $(seq 50); do
  "$COLLPLAN" compile --ranks 4 -q -o "$WORK/fifo.yaml" 2>/dev/null && break
  sleep 0.1
done
wait "$READER"
check "the FIFO's reader gets the plan" grep -q "ranks: 4" "$WORK/from-fifo"
check "the FIFO is still one" test -p "$WORK/fifo.yaml"

# Inputs read without bound or type check (issue 26, item 5). The plan index
# as a FIFO hung `index` and `tune -o`; as a link to /dev/zero it aborted.
mkdir -p "$WORK/fifo-dir" "$WORK/zero-dir"
mkfifo "$WORK/fifo-dir/plans.index"
ln -s /dev/zero "$WORK/zero-dir/plans.index"
for D in fifo-dir zero-dir; do
  cp "$WORK/out4.cplan" "$WORK/$D/a.cplan"
  expect 2 "index with a $D index" -- timeout 20 "$COLLPLAN" index \
    "$WORK/$D/a.cplan"
  check "the $D index is named" grep -q "not a regular file" "$WORK/err"
  expect 2 "tune -o into a $D" -- timeout 20 "$COLLPLAN" tune --ranks 4 \
    --collective allreduce --bytes 8:64 -q -o "$WORK/$D"
done
check "the FIFO index is still one" test -p "$WORK/fifo-dir/plans.index"
# A 100,000-entry index: linear time (it took 26 s, quadratic).
mkdir -p "$WORK/big-index"
cp "$WORK/out4.cplan" "$WORK/big-index/a.cplan"
python3 - "$WORK/big-index/plans.index" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("version: 1\nplans:\n")
    for i in range(100000):
        f.write(f'  - file: "p{i}.cplan"\n    collective: allreduce\n'
                f'    ranks: 4\n    min_bytes: {i}\n    max_bytes: {i + 1}\n')
PY
expect 0 "a 100,000-entry index" -- timeout 20 "$COLLPLAN" index \
  "$WORK/big-index/a.cplan" --bytes 0:8
check "every entry is kept" grep -q "100001 plan" "$WORK/out"
rm -rf "$WORK/big-index"
# Devices as --hostfile and --params aborted (they were read to the end).
expect 2 "--hostfile /dev/zero" -- timeout 20 "$COLLPLAN" compile \
  --hostfile /dev/zero
check "the device is named" grep -q "not a regular file" "$WORK/err"
expect 2 "--params /dev/zero" -- timeout 20 "$COLLPLAN" compile --ranks 4 \
  --params /dev/zero
check "the device is named" grep -q "not a regular file" "$WORK/err"
expect 0 "--params from a pipe" -- sh -c \
  'printf "alpha: 2e-6\\n" | "$0" compile --ranks 4 -q --params /dev/stdin' \
  "$COLLPLAN"
# A tab parts a host name from slots=N as a space does (it was one rank).
printf 'a\tslots=4\nb slots=2\n' >"$WORK/tab-hosts"
expect 0 "a hostfile line with a tab" -- "$COLLPLAN" compile \
  --hostfile "$WORK/tab-hosts" --algorithm nap --format json
check "the tab line is 4 ranks" test "$(json_get "$WORK/out" "d['ranks']")" = 6
# The parameters file takes numbers as the flags do.
for V in 0x10 1e308 inf nan -1; do
  printf 'alpha: %s\n' "$V" >"$WORK/bad-params.yaml"
  expect 2 "--params alpha: $V" -- "$COLLPLAN" compile --ranks 4 \
    --params "$WORK/bad-params.yaml"
  expect 2 "--alpha $V" -- "$COLLPLAN" compile --ranks 4 --alpha "$V"
done
for V in nan inf 0 -1 1e308; do
  expect 2 "calibrate --timeout $V" -- timeout 20 "$COLLPLAN" calibrate \
    --timeout "$V"
  expect 2 "run --timeout $V" -- timeout 20 "$COLLPLAN" run \
    "$WORK/out4.cplan" --timeout "$V"
done

# tune's sizes up to 2^64 - 1 (issue 26, item 7): doubling past 2^63 wrapped
# to 0, so 8:2^64-1 grew a list of sizes until memory ran out and
# 2^63:2^64-1 never ended. Under a memory limit and a time limit.
for B in 8:18446744073709551615 9223372036854775808:18446744073709551615 \
  18446744073709551615:18446744073709551615; do
  expect 0 "tune --bytes $B" -- timeout 20 sh -c 'ulimit -v 4000000; \
    "$0" tune --ranks 4 --collective allreduce --bytes "$1" \
    --openmpi-rules "$2"' "$COLLPLAN" "$B" "$WORK/rules-$B.txt"
done
check "62 sizes priced up to 2^63, then 2^64 - 1" grep -q "(62 sizes)" \
  "$WORK/rules-8:18446744073709551615.txt"

# One rule for every named rank-dependent family: built as asked, exit 0,
# with the verifier's warning (nap compiled so while swing's latency
# variant was refused, exit 3). nap and permutation are identical in their
# default orders.
for FAMILY in "nap --param order=rank-dependent --topology nodes:3x4" \
  "circulant --param variant=census --param order=rank-dependent -P 12" \
  "swing --param variant=latency --param order=rank-dependent -P 12" \
  "permutation --param r=1 --param order=rank-dependent -P 12"; do
  # shellcheck disable=SC2086  # FAMILY is a list of arguments
  "$COLLPLAN" compile -c allreduce -a $FAMILY >"$WORK/named.out" 2>&1
  check "-a $FAMILY is built as asked" [ $? -eq 0 ]
  check "-a $FAMILY warns that ranks differ" \
    grep -q "results may differ in the last bits between ranks" "$WORK/named.out"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
