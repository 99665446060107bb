#!/usr/bin/env bash
# Installs the Debian packages fieldsync needs, if any are missing. Safe to run again.
# Used by tools/run-main.sh and tools/run-tests.sh; needs root (or sudo) only when something
# is missing.
set -euo pipefail

packages=(
    cmake ninja-build g++ ccache pkg-config lld
    libtrilinos-kokkos-dev
    openmpi-bin libopenmpi-dev
    mpich libmpich-dev
    catch2 libspdlog-dev libmetis-dev
    libptscotch-dev libcli11-dev libtrilinos-zoltan-dev
    valgrind python3
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "fieldsync setup: installing ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Open MPI refuses to run as root unless told it may; more ranks than cores need oversubscription.
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
