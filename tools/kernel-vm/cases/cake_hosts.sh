# cake per-host isolation and flow fairness: `cake bandwidth $RATE besteffort $ISOLATION`
# (cake's own shaper, raw: it charges skb->len) on the router's egress toward the receiver;
# 10 ms netem delay on the receiver's egress (the ACK path). The sender has a second
# address ($SENDER2_IP): host A ($SENDER_IP) runs $FLOWS_A greedy TCP flows (iperf3, CUBIC,
# port 5201), host B ($SENDER2_IP) $FLOWS_B (port 5202); with dual-srchost each host gets
# half, and host B's flows share its half equally. airqueue's side: scenarios/cake_hosts.toml.
# With UDP_RATE_A/UDP_RATE_B set (iperf3 -b, per stream), the flows are UDP ($SIZE B
# datagrams) and the servers write JSON (server_a.json, server_b.json: what arrived each
# second). airqueue's side: scenarios/cake_hosts_udp.toml.
# Results: iperf3_a.json, iperf3_b.json (per-stream goodput over $SECONDS_RUN s after
# $OMIT s), qdisc_end.txt (`tc -s qdisc show`: cake's per-tin counters).
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
ISOLATION=${ISOLATION:-dual-srchost}
FLOWS_A=${FLOWS_A:-1}
FLOWS_B=${FLOWS_B:-3}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
UDP_RATE_A=${UDP_RATE_A:-}
UDP_RATE_B=${UDP_RATE_B:-}
SIZE=${SIZE:-1448}
SENDER2_IP=10.0.1.3
set -x
on sender ip addr add "$SENDER2_IP/24" dev eth0
on receiver tc qdisc add dev eth0 root netem delay 10ms limit 10000
on router tc qdisc add dev eth1 root cake bandwidth "$RATE" besteffort "$ISOLATION"
on router tc qdisc show dev eth1 >qdisc_setup.txt
if [ -n "$UDP_RATE_A" ]; then
  on receiver iperf3 -s -1 -J -p 5201 >server_a.json 2>server_a.err &
  on receiver iperf3 -s -1 -J -p 5202 >server_b.json 2>server_b.err &
  UDP_A="-u -b $UDP_RATE_A -l $SIZE"
  UDP_B="-u -b $UDP_RATE_B -l $SIZE"
else
  on receiver iperf3 -s -D -1 -p 5201
  on receiver iperf3 -s -D -1 -p 5202
fi
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -B "$SENDER_IP" -p 5201 -P "$FLOWS_A" $UDP_A -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_a.json 2>iperf3_a.err &
a=$!
on sender iperf3 -c "$RECEIVER_IP" -B "$SENDER2_IP" -p 5202 -P "$FLOWS_B" $UDP_B -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_b.json 2>iperf3_b.err &
b=$!
wait "$a" "$b"
sleep 2
on router tc -s qdisc show dev eth1 >qdisc_end.txt
wait
