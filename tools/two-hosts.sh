#!/usr/bin/env bash
# A run across two hosts on one machine: two network namespaces joined by a veth pair, each with
# its own host name (a UTS namespace per process), and Open MPI launching across them over TCP
# with a launcher agent that enters the other namespace instead of ssh. MPI_Comm_split_type
# (splitShared) then sees two nodes, so the node level of CommunicatorHierarchy is real.
#
#   tools/two-hosts.sh [--quick] [BUILD_DIR]   (default build/release; needs root)
#
# Runs on 4 ranks, 2 per host: the hierarchy and environment tests (--quick: of the hierarchy
# test only the node-level case, "[nodes]", as the CTest test two_hosts does) with FIELDSYNC_EXPECT_NODES=2
# (they assert two node communicators of 2 ranks each, against the ranks' host names), a check
# that prints each rank's host and node, and fieldsync-heat, verified against the serial run.
# Everything it creates (namespaces, veth pair, /etc/netns files, the temporary folder, the
# processes in the namespaces) is removed on exit, also on failure or interruption. The
# machine's own network is not touched: both ends of the veth pair live in the new namespaces.
# Exit status: 0 passed, 77 skipped (no namespaces here), other: failed. See doc/scaling.md.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# the mpi layer's tests are one program (test_mpi); a file's test cases are selected by its tag
hierarchy_cases=("[#communicatorHierarchy]~[.]")
if [[ ${1:-} == --quick ]]; then
    hierarchy_cases=("[#communicatorHierarchy][nodes]")
    shift
fi
build=$(cd "${1:-${root}/build/release}" && pwd)
hosts=(fieldsync-host-a fieldsync-host-b)            # host names, one per namespace
namespaces=(fieldsync-two-hosts-a fieldsync-two-hosts-b)
addresses=(10.251.183.1 10.251.183.2)
subnet=10.251.183.0/24
total=${FIELDSYNC_TWO_HOSTS_TIMEOUT:-600} # seconds for the whole script, waits included
deadline=$((SECONDS + total))
mpiexec=${MPIEXEC:-mpiexec} # Open MPI's

for exe in test/mpi/test_mpi examples/heat/fieldsync-heat; do
    if [[ ! -x ${build}/${exe} ]]; then
        echo "two-hosts: ${build}/${exe} is missing; build it first:" >&2
        echo "  cmake --build ${build} --target test_mpi fieldsync-heat" >&2
        exit 1
    fi
done
if ! "${mpiexec}" --version 2>/dev/null | grep -q "OpenRTE\|Open MPI"; then
    echo "two-hosts: SKIPPED: mpiexec is not Open MPI (the launcher agent is Open MPI's)" >&2
    exit 77
fi

for tool in ip unshare flock timeout awk; do
    if ! command -v "${tool}" >/dev/null; then
        echo "two-hosts: SKIPPED: ${tool} is not installed (iproute2, util-linux, coreutils)" >&2
        exit 77
    fi
done
# CAP_NET_ADMIN (bit 12) for the network namespaces, CAP_SYS_ADMIN (bit 21) for the UTS ones
caps=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
if (((0x${caps:-0} >> 12 & 1) == 0 || (0x${caps:-0} >> 21 & 1) == 0)); then
    echo "two-hosts: SKIPPED: needs CAP_NET_ADMIN and CAP_SYS_ADMIN (root) for namespaces" >&2
    exit 77
fi

# One run at a time on this machine; a run killed before its clean-up left names to remove.
lock=/run/lock/fieldsync-two-hosts.lock
[[ -d /run/lock ]] || lock=/tmp/fieldsync-two-hosts.lock
exec 9>"${lock}"
if ! flock -w "${total}" 9; then
    echo "two-hosts: another run holds ${lock}" >&2
    exit 1
fi

work=""
made_etc_netns=0
[[ -d /etc/netns ]] || made_etc_netns=1
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for ns in "${namespaces[@]}"; do
        if ip netns list 2>/dev/null | grep -qw "${ns}"; then
            # processes this script started in the namespace (mpiexec, orted, ranks)
            for pid in $(ip netns pids "${ns}" 2>/dev/null); do
                kill -KILL "${pid}" 2>/dev/null || true
            done
            ip netns delete "${ns}" 2>/dev/null || true # removes the veth pair with it
        fi
        rm -rf "/etc/netns/${ns}"
    done
    if [[ ${made_etc_netns} == 1 ]]; then
        rmdir /etc/netns 2>/dev/null || true
    fi
    [[ -n ${work} ]] && rm -rf "${work}"
    exit "${status}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cleanup_leftovers() {
    for ns in "${namespaces[@]}"; do
        if ip netns list 2>/dev/null | grep -qw "${ns}"; then
            echo "two-hosts: removing ${ns}, left by an earlier run"
            for pid in $(ip netns pids "${ns}" 2>/dev/null); do
                kill -KILL "${pid}" 2>/dev/null || true
            done
            ip netns delete "${ns}"
        fi
        rm -rf "/etc/netns/${ns}"
    done
}
cleanup_leftovers

if ! ip netns add "${namespaces[0]}" 2>/dev/null; then
    echo "two-hosts: SKIPPED: cannot create a network namespace (needs root or CAP_NET_ADMIN)" >&2
    exit 77
fi
ip netns add "${namespaces[1]}"
if ! unshare --uts true 2>/dev/null; then
    echo "two-hosts: SKIPPED: cannot create a UTS namespace (needs CAP_SYS_ADMIN)" >&2
    exit 77
fi
ip link add fsync-veth netns "${namespaces[0]}" type veth peer name fsync-veth \
    netns "${namespaces[1]}"
work=$(mktemp -d /tmp/fieldsync-two-hosts.XXXXXX)
for i in 0 1; do
    ns=${namespaces[$i]}
    ip -n "${ns}" link set lo up
    ip -n "${ns}" addr add "${addresses[$i]}/24" dev fsync-veth
    ip -n "${ns}" link set fsync-veth up
    # name resolution inside the namespace: ip netns exec binds /etc/netns/NS/hosts on /etc/hosts
    mkdir -p "/etc/netns/${ns}"
    {
        echo "127.0.0.1 localhost"
        echo "${addresses[0]} ${hosts[0]}"
        echo "${addresses[1]} ${hosts[1]}"
    } >"/etc/netns/${ns}/hosts"
done

# The launcher agent: Open MPI calls it as ssh, "agent HOST COMMAND...", and the command is one
# shell line split into words; it runs in HOST's namespace under HOST's name.
cat >"${work}/agent" <<EOF
#!/bin/sh
case "\$1" in
${hosts[0]}) ns=${namespaces[0]} ;;
${hosts[1]}) ns=${namespaces[1]} ;;
*) echo "two-hosts agent: unknown host \$1" >&2; exit 255 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c 'hostname "\$0"; exec sh -c "\$*"' "\$@"
EOF
chmod +x "${work}/agent"
printf '%s slots=2\n' "${hosts[@]}" >"${work}/hostfile"

# on host a (mpiexec's host), under its name
on_host_a() {
    # shellcheck disable=SC2016 # expanded by the inner shell
    ip netns exec "${namespaces[0]}" unshare --uts sh -c 'hostname "$0"; exec "$@"' \
        "${hosts[0]}" "$@"
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Runs in the background and waits, so that a TERM reaches the trap (and the clean-up) at once;
# killed when the script's time is up.
mpirun_across() {
    local left=$((deadline - SECONDS))
    if ((left <= 0)); then
        echo "two-hosts: out of time (FIELDSYNC_TWO_HOSTS_TIMEOUT=${total} s)" >&2
        return 124
    fi
    on_host_a timeout -k 5 "${left}" "${mpiexec}" -n 4 --hostfile "${work}/hostfile" \
        --map-by ppr:2:node --bind-to none \
        --mca plm_rsh_agent "${work}/agent" --mca plm_rsh_no_tree_spawn 1 \
        --mca btl self,vader,tcp --mca btl_tcp_if_include "${subnet}" \
        --mca oob_tcp_if_include "${subnet}" \
        -x FIELDSYNC_EXPECT_NODES=2 -x FIELDSYNC_LOG_LEVEL=warn "$@" &
    wait $!
}

echo "== two hosts: ${hosts[0]} (${addresses[0]}) and ${hosts[1]} (${addresses[1]})," \
    "4 ranks, 2 per host, Open MPI over TCP on ${subnet}"
echo "== where the ranks run (host name, and Open MPI's rank on its node)"
# shellcheck disable=SC2016 # expanded by each rank's shell
mpirun_across sh -c 'echo "rank ${OMPI_COMM_WORLD_RANK}: host $(hostname)," \
"local rank ${OMPI_COMM_WORLD_LOCAL_RANK} of ${OMPI_COMM_WORLD_LOCAL_SIZE}"' >"${work}/ranks.txt"
sort "${work}/ranks.txt"
echo "== test_communicator_hierarchy (node level against the host names)"
mpirun_across "${build}/test/mpi/test_mpi" --filenames-as-tags --warn NoTests "${hierarchy_cases[@]}"
echo "== test_mpi_environment (splitShared against the host names)"
mpirun_across "${build}/test/mpi/test_mpi" --filenames-as-tags --warn NoTests "[#environment]~[.]"
echo "== fieldsync-heat on 4 ranks across the hosts, verified against the serial run"
mpirun_across "${build}/examples/heat/fieldsync-heat" --nx 40 --ny 40 --steps 50 \
    >"${work}/heat.txt"
cat "${work}/heat.txt"
grep -q "BITWISE IDENTICAL" "${work}/heat.txt"
echo "== two hosts: passed"
