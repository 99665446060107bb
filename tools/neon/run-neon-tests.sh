#!/usr/bin/env bash
# NeoN's own MPI tests against the INSTALLED fieldsync package (issue #32's "Done when").
#
#   cmake --install build/release --prefix /tmp/fieldsync-prefix
#   tools/neon/run-neon-tests.sh /tmp/fieldsync-prefix [NEON_GIT_DIR]
#
# 1. Extracts NeoN's test files from its git repository (NEON_GIT_DIR, default the mirror below;
#    a bare repository is fine) into a scratch directory (WORK, default build/neon-tests). Nothing
#    of NeoN's is in this repository, and nothing here edits a test beyond the renames in step 2.
# 2. Renames them with the sed rules listed in `renames` (namespace, include paths, Catch2 3's
#    headers to the installed Catch2 2's); WORK/renames.diff shows every changed line.
# 3. Builds them as an outside project (tools/neon/CMakeLists.txt: find_package(fieldsync) from
#    PREFIX, Catch2 2, fieldsync's NeoN-style test main test/compat/main.cpp), each file its own
#    program, going on past a file that does not compile.
# 4. Runs each on 3 ranks (how NeoN registers them), then on 1, 2 and 4 where the test does not
#    assume 3 ranks (`ranks` below), each run under `timeout -k 5 120`; noMPIEnvironment runs
#    without mpiexec, as NeoN runs it.
# Prints a table (file, compiled, result per rank count) and exits 1 when anything failed.
#
# Environment: MPIEXEC (default mpiexec; Open MPI gets --oversubscribe), NEON_DEVELOP (default
# 32d8275), NEON_DISTRIBUTED (default refs/pull/420/head, PR #420), CMAKE_ARGS (extra arguments
# for the outside project's configure, e.g. -DKokkos_ROOT=...), JOBS (default 2).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${1:?usage: $0 PREFIX [NEON_GIT_DIR]}
neon_git=${2:-/work/.mirror/exasim-project+NeoN/repo}
work=${WORK:-$root/build/neon-tests}
develop=${NEON_DEVELOP:-32d8275}
distributed=${NEON_DISTRIBUTED:-refs/pull/420/head}
mpiexec=${MPIEXEC:-mpiexec}
jobs=${JOBS:-2}

# The files: name, NeoN revision, path in NeoN.
files=(
    "operators $develop test/core/mpi/operators.cpp"
    "halfDuplexCommBuffer $develop test/core/mpi/halfDuplexCommBuffer.cpp"
    "fullDuplexCommBuffer $develop test/core/mpi/fullDuplexCommBuffer.cpp"
    "communicator $develop test/mesh/unstructured/communicator.cpp"
    "MPIEnvironment $distributed test/core/mpi/MPIEnvironment.cpp"
    "noMPIEnvironment $distributed test/core/mpi/noMPIEnvironment.cpp"
)

# The rank counts each file runs on, 3 first (NeoN's MPI_SIZE 3); "1:ARGS" gives a run Catch2
# arguments. 0 is a run without mpiexec (NeoN registers noMPIEnvironment without MPI_SIZE).
declare -A ranks=(
    # "isend irecv Test" sends from rank 0 to rank 1, and "allReduce value" expects Land and
    # Band of rank 0's 1 and the other ranks' 0 to be 0: on 1 rank, the other test cases
    [operators]="3 1:getOp,getType,*vectors 2 4"
    [halfDuplexCommBuffer]="3 1 2 4"
    [fullDuplexCommBuffer]="3 1 2 4"
    [communicator]="3 1 2 4"
    # asserts sizeRank() == 3
    [MPIEnvironment]="3"
    [noMPIEnvironment]="0"
)

# The renames, each with why; nothing else in a file changes.
renames=(
    # Catch2 3 splits its API into headers (catch_test_macros.hpp, ...); Catch2 2, the one
    # installed, has one. The macros these files use (TEST_CASE, SECTION, REQUIRE,
    # REQUIRE_FALSE) are the same in both, so no macro needs a rule.
    -e 's|#include[[:space:]]*[<"]catch2/[^>"]*[>"]|#include <catch2/catch.hpp>|'
    # NeoN's test/catch2/catch2_common.hpp only bundles Catch2 3's headers (and executor
    # generators for NeoN's field tests, which communicator.cpp does not use).
    -e 's|#include[[:space:]]*"catch2_common.hpp"|#include <catch2/catch.hpp>|'
    # include paths: NeoN/... -> fieldsync/... (compat/ provides NeoN's header paths)
    -e 's|#include[[:space:]]*"NeoN/|#include "fieldsync/|'
    # the namespace
    -e 's/\bNeoN::/fieldsync::/g'
    -e 's/\bnamespace NeoN\b/namespace fieldsync/g'
)

if [[ ! -d $prefix/lib/cmake/fieldsync && ! -d $prefix/lib64/cmake/fieldsync ]]; then
    echo "no installed fieldsync in $prefix: cmake --install build/release --prefix $prefix" >&2
    exit 2
fi
if ! git --git-dir="$neon_git" rev-parse --quiet --verify "$develop^{commit}" >/dev/null 2>&1; then
    echo "SKIPPED: no NeoN repository with $develop at $neon_git" >&2
    exit 77
fi
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpiflags=()
if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    mpiflags=(--oversubscribe)
fi

# --- 1, 2: extract and rename ------------------------------------------------------------------
rm -rf "$work/original" "$work/src"
mkdir -p "$work/original" "$work/src"
declare -A found
for entry in "${files[@]}"; do
    read -r name rev path <<<"$entry"
    if git --git-dir="$neon_git" show "$rev:$path" >"$work/original/$name.cpp" 2>/dev/null; then
        found[$name]=1
        sed "${renames[@]}" "$work/original/$name.cpp" >"$work/src/$name.cpp"
    else
        echo "not in $neon_git: $rev:$path" >&2
        rm -f "$work/original/$name.cpp"
    fi
done
(cd "$work" && diff -ru original src >renames.diff)

# --- 3: build as an outside project ------------------------------------------------------------
read -r -a extra <<<"${CMAKE_ARGS:-}"
cmake -S "$root/tools/neon" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DNEON_TEST_SOURCES="$work/src" -DFIELDSYNC_SOURCE="$root" \
    "${extra[@]}" >"$work/configure.log" 2>&1 || {
    echo "configure failed: $work/configure.log" >&2
    exit 1
}
nice -n 10 cmake --build "$work/build" -j "$jobs" -- -k 0 >"$work/build.log" 2>&1
echo "build log: $work/build.log; renames: $work/renames.diff"

# --- 4: run --------------------------------------------------------------------------------------
failed=0
printf '%-22s %-9s %s\n' file compiled "ranks: result"
for entry in "${files[@]}"; do
    read -r name _ _ <<<"$entry"
    exe=$work/build/$name
    if [[ -z ${found[$name]:-} ]]; then
        printf '%-22s %-9s %s\n' "$name" "-" "not in the NeoN repository"
        failed=1
        continue
    fi
    if [[ ! -x $exe ]]; then
        printf '%-22s %-9s %s\n' "$name" no "(see build.log)"
        failed=1
        continue
    fi
    results=()
    for run in ${ranks[$name]}; do
        n=${run%%:*}
        args=()
        [[ $run == *:* ]] && args=("${run#*:}")
        log=$work/$name.np$n.log
        if ((n == 0)); then
            timeout -k 5 120 "$exe" "${args[@]}" >"$log" 2>&1
        else
            timeout -k 5 120 "$mpiexec" -n "$n" "${mpiflags[@]}" "$exe" "${args[@]}" >"$log" 2>&1
        fi
        rc=$?
        label=$([[ $n == 0 ]] && echo "no MPI" || echo "$n")
        [[ $run == *:* ]] && label+=" (${run#*:})"
        if ((rc == 0)); then
            results+=("$label: passed")
        else
            results+=("$label: FAILED ($rc, $log)")
            failed=1
        fi
    done
    joined=$(printf '%s; ' "${results[@]}")
    printf '%-22s %-9s %s\n' "$name" yes "${joined%; }"
done
exit $failed
