#!/bin/sh
# Measures the veth + AF_PACKET bare forwarder (tools/live/afpacket_bare.c) the way
# `airqueue bench --live` measures the TUN one: iperf3 with 64-byte UDP payloads unpaced,
# then MTU TCP, from host a (10.0.0.1) to host b (10.0.0.2) through the forwarder
# (issue 34 item 1; docs/live.md#throughput). Root; makes the namespaces aq-<pid>-a, -b and
# -fwd (the prefix `airqueue live --cleanup` knows) and removes them on exit.
#
#   sh tools/live/afpacket_bench.sh [SECONDS]      (default 5)
set -eu
T=${1:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(mktemp /tmp/afpacket_bare.XXXXXX)
gcc -O2 -o "$BIN" "$HERE/afpacket_bare.c"
P=$$
A=aq-$P-a B=aq-$P-b F=aq-$P-fwd
cleanup() { ip netns del "$A" 2>/dev/null; ip netns del "$B" 2>/dev/null; ip netns del "$F" 2>/dev/null; rm -f "$BIN"; }
trap cleanup EXIT INT TERM
for n in "$A" "$B" "$F"; do ip netns add "$n"; ip -n "$n" link set lo up; done
ip -n "$F" link add pa type veth peer name aq0 netns "$A"
ip -n "$F" link add pb type veth peer name aq0 netns "$B"
ip -n "$A" addr add 10.0.0.1/8 dev aq0
ip -n "$B" addr add 10.0.0.2/8 dev aq0
for n in "$A" "$B"; do
    ip -n "$n" link set aq0 up
    # Wire-sized frames only, with their checksums filled in (AF_PACKET copies bytes as
    # they are; a CHECKSUM_PARTIAL frame would arrive with a bad checksum).
    ip netns exec "$n" ethtool -K aq0 tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
done
for i in pa pb; do
    ip -n "$F" link set "$i" up
    ip netns exec "$F" ethtool -K "$i" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
done
run() { # $1 = label, rest = iperf3 client options
    label=$1; shift
    ip netns exec "$B" iperf3 -s -1 >/dev/null 2>&1 &
    srv=$!
    out=$(mktemp)
    ip netns exec "$F" "$BIN" pa pb "$(echo "$T + 1.5" | bc)" >"$out" &
    fwd=$!
    sleep 0.3
    json=$(ip netns exec "$A" iperf3 -c 10.0.0.2 -t "$T" -J "$@")
    wait $fwd; wait $srv || true
    written=$(awk '{print $4}' "$out"); cpu=$(awk '{print $8}' "$out"); rm -f "$out"
    echo "$json" | python3 -c "
import json, sys
d = json.load(sys.stdin)['end']
t, w, label, cpu = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
per = f'{cpu / w * 1e6:.2f} us CPU per frame' if w else '-'
if 'retransmits' in d.get('sum_sent', {}):
    print(f'{label}: {d[\"sum_received\"][\"bits_per_second\"]/1e6:.0f} Mbit/s at the receiver, '
          f'{d[\"sum_sent\"][\"retransmits\"]} retransmits, {w/t:,.0f} frames/s written, {per}')
else:
    print(f'{label}: {w/t:,.0f} packets/s written, {d[\"sum\"][\"packets\"]/t:,.0f}/s offered, {per}')
" "$T" "$written" "$label" "$cpu"
}
echo "load average: $(cat /proc/loadavg)"
run "veth+AF_PACKET UDP 64 B" -u -l 64 -b 0
run "veth+AF_PACKET TCP" 
echo "load average: $(cat /proc/loadavg)"
