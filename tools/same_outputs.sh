#!/usr/bin/env bash
# Compares every output of two walltime-analyze binaries byte for byte over a set of traces:
# the check a change meant to keep outputs equal (a speed-up, a refactoring) must pass before
# it lands. Each trace goes through the same commands with both binaries (stdout and stderr
# together, the exit status appended); every difference is listed with the first lines of its
# diff. Exit status 0 when all are equal, 1 when any differs.
#
# usage: tools/same_outputs.sh OLD NEW TRACE...
#   e.g. tools/same_outputs.sh /tmp/walltime-analyze.base build/analyze/walltime-analyze \
#          tests/data/*.wtrace /tmp/tr/*.wtrace
# A directory among the traces stands for the *.wtrace files under it. Traces of several
# processes are also compared together (the first three given, as one run).
set -u
[ $# -ge 3 ] || { sed -n 2,13p "$0" >&2; exit 2; }
old=$1 new=$2
shift 2
traces=()
for t in "$@"; do
    if [ -d "$t" ]; then
        while IFS= read -r f; do traces+=("$f"); done < <(find "$t" -name '*.wtrace' | sort)
    else
        traces+=("$t")
    fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/same_outputs.XXXXXX")
trap 'rm -rf "$work"' EXIT
# each command's words; OUT is replaced by a file in the work directory, read back after
cmds=(
    "info"
    "dump --json"
    "ledger"
    "ledger --json"
    "ledger --by label --top 5"
    "ledger --flat"
    "anomalies"
    "anomalies --json --all"
    "export --format perfetto -o OUT"
    "export --format chrome -o OUT"
)
run() { # binary, tag, command words..., -- traces
    local bin=$1 tag=$2
    shift 2
    local words=()
    while [ "$1" != -- ]; do words+=("$1"); shift; done
    shift
    local out="$work/$tag.file"
    local args=()
    for w in "${words[@]}"; do [ "$w" = OUT ] && args+=("$out") || args+=("$w"); done
    rm -f "$out"
    "$bin" "${args[@]}" "$@" >"$work/$tag.txt" 2>&1
    echo "exit $?" >>"$work/$tag.txt"
    [ -f "$out" ] && cat "$out" >>"$work/$tag.txt"
    # the inputs' own paths are in the outputs of both: equal; the work file's name is not
    sed -i "s|$work/$tag.file|OUT|g" "$work/$tag.txt"
}
n=0 bad=0
compare() { # label, command, traces...
    local label=$1 cmd=$2
    shift 2
    read -r -a words <<<"$cmd"
    run "$old" a "${words[@]}" -- "$@"
    run "$new" b "${words[@]}" -- "$@"
    n=$((n + 1))
    if ! cmp -s "$work/a.txt" "$work/b.txt"; then
        bad=$((bad + 1))
        echo "DIFF: $cmd $label"
        diff "$work/a.txt" "$work/b.txt" | head -8
    fi
}
for t in "${traces[@]}"; do
    for c in "${cmds[@]}"; do compare "$t" "$c" "$t"; done
done
if [ ${#traces[@]} -ge 2 ]; then
    set -- "${traces[@]:0:3}"
    for c in "ledger" "ledger --json" "anomalies --json --all"; do
        compare "(several: $*)" "$c" "$@"
    done
fi
echo "same_outputs: $((n - bad)) of $n equal"
[ $bad -eq 0 ]
