#!/usr/bin/env bash
# Runs fieldsync on the GPU machine from what tools/gpu/build.sh packed (.gpu/carry.tar.xz):
# the GPU machine has CUDA's driver and run time but no MPI and no network, so everything else
# travels in the archive. Run from the repository root there, one or more phases:
#
#   tools/gpu/device-run.sh check tests heat bench     # the GPU runs (doc/notes/gpu.md)
#   tools/gpu/device-run.sh chunks                     # the solver with the host's chunking
#   tools/gpu/device-run.sh cpu                        # CPU scaling on the machine's cores
#   tools/gpu/device-run.sh setup                      # set-up model inputs, back ends, 16 cores
#   tools/gpu/device-run.sh setuponly                  # the set-up alone on 2 to 16 ranks
#   tools/gpu/device-run.sh check shared               # issue 36: kernels, collectives, profile
#   tools/gpu/device-run.sh alone                      # independent solvers sharing the GPU
#   tools/gpu/device-run.sh neon                       # issue 32 on Kokkos 4 + CUDA
#
# Logs and JSON go to /tmp/fieldsync-out, packed at the end into results.tar.gz in $OUT (the
# device tool's folder that comes back, at most 8 files) beside summary.txt, which is written
# there as the runs go; the last lines printed are the summary.
set -uo pipefail

root=$(pwd)
out=/tmp/fieldsync-out
s=/tmp/fieldsync-carry
mkdir -p "$out" "$s"
[[ -x $s/cuda/fieldsync-heat ]] || tar -C "$s" -xJf "$root/.gpu/carry.tar.xz"

mpilib=$s/mpi/usr/lib/x86_64-linux-gnu
export PATH=$s/mpi/usr/bin:$PATH
export LD_LIBRARY_PATH=$s/lib:$mpilib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export UCX_MODULE_DIR=$mpilib/ucx
export HYDRA_LAUNCHER=fork
export FIELDSYNC_WAIT_TIMEOUT=${FIELDSYNC_WAIT_TIMEOUT:-60}
# the summary is written where the device tool takes files back from ($OUT), line by line, so a
# call stopped at its time limit still returns what had run
summary=${OUT:-$out}/summary.txt
: >"$summary"

# run NAME TIMEOUT NP PROGRAM ARGS...: under mpiexec, its output appended to $out/NAME.log;
# one PASS/FAIL line in the summary. MAX_RUN_S, when set, caps every TIMEOUT.
run() {
    local name=$1 limit=$2 np=$3
    shift 3
    ((limit <= ${MAX_RUN_S:-$limit})) || limit=$MAX_RUN_S # a cap for a short device call
    local log=$out/$name.log
    echo "=== np=$np $* (env: ${RUN_ENV:-none})" >>"$log"
    local start=$SECONDS
    env ${RUN_ENV:-} timeout "$limit" mpiexec.hydra -launcher fork -n "$np" ${BIND:-} "$@" \
        >>"$log" 2>&1
    local rc=$?
    local verdict=PASS
    ((rc == 0)) || verdict="FAIL(rc=$rc)"
    printf '%-9s %-44s np=%-2s %4ss %s\n' "$verdict" "$(basename "$1") ${*:2:3}" "$np" \
        $((SECONDS - start)) "${RUN_ENV:-}" | tee -a "$summary"
}

phase_check() {
    {
        nvidia-smi -L
        nproc
        mpiexec.hydra -launcher fork -n 2 hostname
    } >"$out/check.log" 2>&1
    cat "$out/check.log"
}

# run_tests TEST...: each of the CUDA build's tests on 1, 2 and 4 ranks sharing the GPU
run_tests() {
    for np in 1 2 4; do
        for t in "$@"; do
            run tests 300 "$np" "$s/cuda/$t"
        done
    done
}

# The tests per memory space and the host-view tests; the forced-staging run; the direct path
# (FIELDSYNC_GPU_AWARE_MPI=1) on UVM views; pageable staging.
phase_tests() {
    run_tests test_mpi_memory_spaces test_halo_memory_spaces test_collectives \
        test_halo_communicator
    RUN_ENV="FIELDSYNC_FORCE_STAGING=1" run tests 300 2 "$s/cuda/test_halo_memory_spaces"
    RUN_ENV="FIELDSYNC_FORCE_STAGING=1" run tests 300 2 "$s/cuda/test_mpi_memory_spaces"
    RUN_ENV="FIELDSYNC_GPU_AWARE_MPI=1" run tests 300 2 "$s/cuda/test_halo_memory_spaces"
    RUN_ENV="FIELDSYNC_GPU_AWARE_MPI=1" run tests 300 2 "$s/cuda/test_mpi_memory_spaces"
    RUN_ENV="FIELDSYNC_STAGING_MEMORY=pageable" run tests 300 2 "$s/cuda/test_halo_memory_spaces"
    for np in 1 2; do
        run tests 300 "$np" "$s/cuda/test_heat"
    done
    run tests 300 1 "$s/cuda/test_halo_pack_kernels" # the gather kernels per space, the runs kernels on the host
    # the ghost-list set-up, Communicators sharing one duplicate (tag windows), fused reductions
    for np in 2 3; do
        for t in test_halo_ghost_list test_halo_exchange_context test_reduction_batch; do
            run tests 300 "$np" "$s/cuda/$t"
        done
    done
    # check mode on device fields: headers, checksums of device memory, a corrupting fault
    for np in 2 3; do
        RUN_ENV="FIELDSYNC_WAIT_TIMEOUT=1000" run tests 300 "$np" "$s/cuda/test_halo_exchange_check"
    done
    RUN_ENV="FIELDSYNC_WAIT_TIMEOUT=1000 FIELDSYNC_HALO_BACKEND=neighbour" \
        run tests 300 2 "$s/cuda/test_halo_exchange_check"
    RUN_ENV="FIELDSYNC_WAIT_TIMEOUT=1000 FIELDSYNC_FAULTS=seed:5,delay:0,early:0,staging:0,order:0,corrupt:1" \
        run tests 300 2 "$s/cuda/test_halo_exchange_check"
    RUN_ENV="FIELDSYNC_CHECK=1 FIELDSYNC_WAIT_TIMEOUT=1000" run tests 300 2 "$s/cuda/test_halo_communicator"
    # the persistent neighbourhood back end (MPICH 4), device fields through its own host memory
    RUN_ENV="FIELDSYNC_HALO_BACKEND=neighbour-persistent" run tests 300 2 "$s/cuda/test_halo_communicator"
    RUN_ENV="FIELDSYNC_HALO_BACKEND=neighbour-persistent" run tests 300 3 "$s/cuda/test_halo_communicator"
    RUN_ENV="FIELDSYNC_WAIT_TIMEOUT=1000 FIELDSYNC_HALO_BACKEND=neighbour-persistent" \
        run tests 300 2 "$s/cuda/test_halo_exchange_check"
}

# Some of the tests again: ONLY="test_a test_b" tools/gpu/device-run.sh only
phase_only() {
    # shellcheck disable=SC2086 # ONLY is a list of names
    run_tests ${ONLY:-}
}

# The heat solver on the GPU against the CPU run's final field (bitwise) and against its own
# serial run; the share of exchanges hidden behind the interior update.
phase_heat() {
    for np in 1 2 4; do
        run heat 300 "$np" "$s/cuda/fieldsync-heat" --steps 1000 \
            --compare "$s/heat-reference.bin" --stats "$out/heat-stats-np$np.json"
    done
    grep -h -E "verification|hidden\)|^overall" "$out/heat.log" | tee -a "$summary"
}

# Issue 36 in one short call: the kernels, collectives and exchange it changed, tested on the GPU
# (1 and 2 ranks); gpu_bench's kernels and collectives (1 rank) and the collectives on 2 ranks
# sharing the GPU; the staged exchange on 2 ranks sharing the GPU, with the Kokkos timer tool
# (tools/gpu/kokkosTimer.cpp) saying where each exchange's time goes; the heat solver.
phase_shared() {
    run tests 120 1 "$s/cuda/test_halo_pack_kernels"
    for np in 1 2; do
        for t in test_mpi_memory_spaces test_halo_memory_spaces test_collectives \
            test_halo_communicator; do
            run tests 120 "$np" "$s/cuda/$t"
        done
    done
    run gpu_bench 200 1 "$s/cuda/gpu_bench" --only kernels,collectives --json "$out/gpu_bench-np1.json"
    run gpu_bench 120 2 "$s/cuda/gpu_bench" --quick --only collectives --json "$out/gpu_bench-coll-np2.json"
    RUN_ENV="KOKKOS_TOOLS_LIBS=$s/lib/libfieldsync-timer.so FIELDSYNC_TIMER_SCOPE=gpu_bench::" \
        run profile 150 2 "$s/cuda/gpu_bench" --quick --only staging --json "$out/gpu_bench-staging-np2.json"
    phase_heat
    grep -h -A12 "^gpu_bench summary" "$out/gpu_bench.log" | tee -a "$summary"
}

# The cost of sharing the GPU alone: 1, 2 and 4 independent 1-rank heat solvers at once on the one
# GPU (no MPI between them, no exchange; ALONE_STEPS steps, 10000 by default, so that their loops
# overlap), each one's loop time against the solver on 2 and 4 ranks for as many steps; then the
# collectives with the copies written against CUDA itself (not with ALONE_ONLY=1).
phase_alone() {
    local steps=${ALONE_STEPS:-10000} # long enough that the solvers' loops overlap
    for n in 1 2 4; do
        for i in $(seq "$n"); do
            timeout 200 mpiexec.hydra -launcher fork -n 1 "$s/cuda/fieldsync-heat" \
                --steps "$steps" --no-verify >"$out/alone-$n-$i.log" 2>&1 &
        done
        wait
        for i in $(seq "$n"); do
            echo "alone, $n at once, solver $i: $(grep -h "^overall" "$out/alone-$n-$i.log")" |
                tee -a "$summary"
        done
    done
    for np in 2 4; do
        run alone 200 "$np" "$s/cuda/fieldsync-heat" --steps "$steps" --no-verify
    done
    grep -h "^overall" "$out/alone.log" | tee -a "$summary"
    [[ -n ${ALONE_ONLY:-} ]] && return
    run gpu_bench 120 1 "$s/cuda/gpu_bench" --only collectives --json "$out/gpu_bench-raw-np1.json"
    grep -h -A30 "^3. collectives" "$out/gpu_bench.log" | head -n 30 | tee -a "$summary"
}

# The NeoN contract on Kokkos 4 + CUDA: the compatibility suite on 1 to 4 ranks (NeoN runs its
# tests on 3), and NeoN's main (MPIInit, then Kokkos::initialize ... Kokkos::finalize) and the
# README's (Kokkos never initialised by the program), which Kokkos 4 aborts on a double call
phase_neon() {
    for np in 1 2 3 4; do
        run neon 120 "$np" "$s/cuda/test_compat"
    done
    for np in 1 2; do
        run neon 60 "$np" "$s/cuda/kokkosNeonMain"
        run neon 60 "$np" "$s/cuda/kokkosLazyStart"
    done
}

# The heat solver with the host's default interior chunks (2048 cells, a kernel and a fence
# each, progress() between them) against the device default (one update): doc/notes/gpu.md
phase_chunks() {
    for np in 1 2; do
        run chunks 300 "$np" "$s/cuda/fieldsync-heat" --steps 1000 --progress-chunk 2048 \
            --compare "$s/heat-reference.bin"
    done
    grep -h -E "verification against /|^overall" "$out/chunks.log" | tee -a "$summary"
}

# The exchange of large messages against hand-written MPI: halo_bench on 2 and 16 ranks, and
# the staged exchange of gpu_bench on 2 ranks (the wait's progress, doc/notes/gpu.md)
phase_large() {
    for np in 2 16; do
        BIND="-bind-to core" run large 150 "$np" "$s/host/halo_bench" --json "$out/halo_bench-large-np$np.json"
    done
    run large 280 2 "$s/cuda/gpu_bench" --json "$out/gpu_bench-large-np2.json"
}

phase_bench() {
    run gpu_bench 280 1 "$s/cuda/gpu_bench" --json "$out/gpu_bench-np1.json"
    run gpu_bench 280 2 "$s/cuda/gpu_bench" --json "$out/gpu_bench-np2.json"
}

# CPU scaling on the machine's cores (host build, Kokkos Serial): the heat solver at fixed global
# size (hex 128^3) and fixed local size (64^3 cells per rank), 1..16 ranks bound to cores (and 32,
# oversubscribed), and the peak memory per rank; halo_bench and the collective algorithms on 16 ranks.
phase_cpu() {
    export BIND="-bind-to core"
    for np in 1 2 4 8 16; do
        run cpu 150 "$np" "$s/host/fieldsync-heat" --shape hex --nx 128 --steps 100 \
            --partitioner slab --no-verify
    done
    for np in 1 2 4 8 16 32; do # 32: oversubscribed, for the memory per rank
        run cpu 150 "$np" "$s/host/fieldsync-heat" --shape hex --nx 64 --ny 64 \
            --nz $((64 * np)) --steps 100 --partitioner slab --no-verify
    done
    for np in 2 4 8 16; do
        run cpu 150 "$np" "$s/host/halo_bench" --quick --json "$out/halo_bench-np$np.json"
    done
    run cpu 150 16 "$s/host/algorithms_bench" --reps 11 --json "$out/algorithms_bench-np16.json"
    run cpu 150 16 "$s/host/hierarchy_bench" --group 4 --json "$out/hierarchy_bench-np16.json"
    unset BIND
    grep -h -E "^fieldsync-heat|^overall|peak resident" "$out/cpu.log" >"$out/cpu-heat.txt"
}

# The set-up model's inputs on up to 16 cores, not oversubscribed (doc/notes/scaling.md, set-up model;
# tools/setup-model.py --cores 16), and the back ends on the solver's pattern on 2 to 16 ranks
phase_setup() {
    setup_runs
    phase_backends
}

# setup_bench on 2 to 16 ranks, bound to cores (the set-up model's inputs)
setup_runs() {
    export BIND="-bind-to core"
    for np in 2 4 8 16; do
        run setup 280 "$np" "$s/host/setup_bench" --rounds 11 --sizes 256,4096,32768,131072 \
            --json "$out/setup-p$np.json"
    done
    unset BIND
}

# The set-up alone on 2 to 16 ranks (no back ends), and the ghost-list tests on rank counts
# that are not powers of two (the rounds of the answered exchange's agreement)
phase_setuponly() {
    setup_runs
    for np in 5 12 16; do
        run tests 300 "$np" "$s/cuda/test_halo_ghost_list"
    done
}

# The back ends (the persistent one included: MPICH 4) and Auto's choice on 2 to 16 ranks
phase_backends() {
    for np in 2 4 16; do
        BIND="-bind-to core" run backends 200 "$np" "$s/host/backend_bench" \
            --json "$out/backend_bench-np$np.json"
    done
}

for phase in "$@"; do
    "phase_$phase"
done
if [[ -n ${OUT:-} ]]; then
    tar -C "$out" -czf "$OUT/results.tar.gz" .
fi
echo "--- summary"
cat "$summary"
