#!/usr/bin/env bash
# Builds the ns-3 reference programs against the installed ns-3 libraries: Debian's
# `apt-get install libns3-dev` (ns-3 3.37). tools/ns3/dumbbell (the reference dumbbell,
# docs/ns3-comparison.md), tools/ns3/wifi_saturation and tools/ns3/wifi_mixed_rate (the
# 802.11b cells, docs/ns3-wifi-comparison.md).
#
#   tools/ns3/build.sh                    # all three, next to their sources
#   tools/ns3/build.sh wifi_saturation    # only the programs named
#   CXX=clang++ OUT=/tmp/dumbbell tools/ns3/build.sh dumbbell
#
# Against an ns-3 tree you built yourself instead (e.g. upstream's `optimized` profile; see
# docs/ns3-comparison.md), name its top folder; the program records the library path:
#
#   NS3_TREE=/path/to/ns-3.37 OUT=tools/ns3/dumbbell-optimized tools/ns3/build.sh
#
# Against an installed ns-3 (headers in PREFIX/include, libraries libns3.<ver>-<module>.so
# in PREFIX/lib64 or PREFIX/lib), e.g. the `ns3` wheel from PyPI, whose package folder is
# such a prefix: ns-3 3.44 built with its `release` profile (-O3; NS_LOG and NS_ASSERT
# still compiled in, see docs/ns3-comparison.md). The programs are written next to their
# sources with the version appended (dumbbell-ns3.44, ...), so both builds can sit side by
# side; the library folder is recorded as the programs' rpath:
#
#   python3 -m venv /tmp/ns3-344 && /tmp/ns3-344/bin/pip install ns3==3.44.post0
#   NS3_PREFIX=$(echo /tmp/ns3-344/lib/python3*/site-packages/ns3) tools/ns3/build.sh
#   NS3_PREFIX=... tools/ns3/build.sh wifi_ht_saturation    # 3.44 only
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
programs=("$@")
if [[ ${#programs[@]} -eq 0 ]]; then
    # OUT alone names the dumbbell's output, as before the wifi programs existed.
    if [[ -n "${OUT:-}" ]]; then programs=(dumbbell); else programs=(dumbbell wifi_saturation wifi_mixed_rate wifi_hidden wifi_updown); fi
    # The HT/VHT/HE cells need ns-3 >= 3.44's wifi API: only with NS3_PREFIX.
    if [[ -z "${OUT:-}" && -n "${NS3_PREFIX:-}" ]]; then programs+=(wifi_ht_saturation); fi
fi
if [[ -n "${OUT:-}" && ${#programs[@]} -ne 1 ]]; then
    echo "OUT names one program's output: name one program" >&2
    exit 1
fi
cxx="${CXX:-g++}"
wired=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)

# The compiler and linker flags for the ns-3 modules named as arguments (ns3-<module>).
ns3_flags() {
    local modules=("$@")
    flags=()
    if [[ -n "${NS3_PREFIX:-}" ]]; then
        # An installed prefix (the PyPI wheel's package folder): its .pc files name the
        # folders it was built in, so the flags are made here. The definitions are those its
        # CMake package (lib64/cmake/ns3/ns3Targets.cmake) gives a program built against it.
        local lib m
        for lib in "$NS3_PREFIX/lib64" "$NS3_PREFIX/lib"; do
            [[ -n "$(ls "$lib"/libns3*-core*.so 2>/dev/null)" ]] && break
        done
        [[ -n "$(ls "$lib"/libns3*-core*.so 2>/dev/null)" ]] || { echo "no libns3*-core*.so in $NS3_PREFIX/lib64 or /lib" >&2; exit 1; }
        flags+=(-I"$NS3_PREFIX/include" -L"$lib" -Wl,-rpath,"$lib")
        if grep -qs NS3_BUILD_PROFILE_RELEASE "$lib/cmake/ns3/ns3Targets.cmake"; then flags+=(-DNS3_BUILD_PROFILE_RELEASE); fi
        if grep -qs NS3_LOG_ENABLE "$lib/cmake/ns3/ns3Targets.cmake"; then flags+=(-DNS3_LOG_ENABLE); fi
        if grep -qs NS3_ASSERT_ENABLE "$lib/cmake/ns3/ns3Targets.cmake"; then flags+=(-DNS3_ASSERT_ENABLE); fi
        for m in "${modules[@]}" ns3-stats ns3-bridge; do
            flags+=("-lns3.${ns3_version#3.}-${m#ns3-}")
        done
    elif [[ -n "${NS3_TREE:-}" ]]; then
        # A built tree: headers in build/include, libraries named libns3.<ver>-<module>-<profile>.so.
        local lib="$NS3_TREE/build/lib" core prefix suffix m
        core="$(ls "$lib"/libns3*-core*.so 2>/dev/null | head -n1)"
        [[ -n "$core" ]] || { echo "no libns3*-core*.so in $lib: build the tree first" >&2; exit 1; }
        core="$(basename "$core" .so)"          # libns3.37-core-optimized
        prefix="${core%%-core*}"                # libns3.37
        suffix="${core#*-core}"                 # -optimized
        flags+=(-I"$NS3_TREE/build/include" -L"$lib" -Wl,-rpath,"$lib")
        for m in "${modules[@]}" ns3-stats ns3-bridge; do
            flags+=("-l${prefix#lib}-${m#ns3-}${suffix}")
        done
    elif command -v pkg-config >/dev/null && pkg-config --exists "${modules[@]}" 2>/dev/null; then
        # Debian's ns-3 3.37 .pc files are slightly broken: their Cflags carry "-I/usr;" (a
        # CMake list separator) and their Libs name /usr/lib/.../libgsl.so, which only
        # libgsl-dev installs (the ns-3 libraries already link libgsl themselves). Keep the
        # sound tokens.
        local -A seen=()
        local tok
        for tok in $(pkg-config --cflags --libs "${modules[@]}"); do
            tok="${tok//\\/}"
            [[ "$tok" == *";"* ]] && continue
            [[ "$tok" == /* && ! -e "$tok" ]] && continue
            [[ -n "${seen[$tok]:-}" ]] && continue
            seen[$tok]=1
            flags+=("$tok")
        done
    else
        # No pkg-config: the headers are in /usr/include/ns3 and the libraries are
        # libns3-<module>.so (Debian names the files libns3-<module>.so.37).
        local m
        for m in "${modules[@]}"; do
            flags+=("-l$m")
        done
        flags+=(-lns3-stats -lns3-bridge)
    fi
}

# The ns-3 version the programs report ("version" in their JSON).
if [[ -n "${NS3_PREFIX:-}" ]]; then
    core="$(basename "$(ls "$NS3_PREFIX"/lib*/libns3*-core*.so 2>/dev/null | head -n1)" .so)"
    ns3_version="${core#libns3.}"; ns3_version="3.${ns3_version%%-*}"   # libns3.44-core -> 3.44
    suffix="-ns${ns3_version}"
elif [[ -n "${NS3_TREE:-}" ]]; then
    core="$(basename "$(ls "$NS3_TREE"/build/lib/libns3*-core*.so 2>/dev/null | head -n1)" .so)"
    ns3_version="${core#libns3.}"; ns3_version="3.${ns3_version%%-*}"
    suffix=""
else
    ns3_version="$(pkg-config --modversion ns3-core 2>/dev/null || echo 3.37)"
    suffix=""
fi

# ns-3 >= 3.40 needs C++20 (its headers use std::remove_cvref_t and concepts).
std=c++17
if [[ "${ns3_version#3.}" -ge 40 ]]; then std=c++20; fi

for program in "${programs[@]}"; do
    src="$here/$program.cc"
    [[ -f "$src" ]] || { echo "no $src" >&2; exit 1; }
    out="${OUT:-$here/$program$suffix}"
    case "$program" in
        dumbbell) ns3_flags "${wired[@]}" ;;
        *) ns3_flags "${wired[@]}" ns3-wifi ns3-mobility ns3-propagation ns3-spectrum ns3-antenna ns3-energy ;;
    esac
    (set -x; "$cxx" -std=$std -O2 -Wall -DAQ_NS3_VERSION="\"$ns3_version\"" -DAQ_NS3_MINOR="${ns3_version#3.}" -o "$out" "$src" "${flags[@]}")
done
