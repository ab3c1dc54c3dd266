# tbf rate: one greedy TCP flow (iperf3, CUBIC) through `tbf rate $RATE burst $BURST
# latency $LATENCY` on the router's egress toward the receiver; 10 ms netem delay on the
# receiver's egress (the ACK path). airqueue's side: tools/kernel-vm/scenarios/tbf_rate.toml.
# Results: iperf3.json (goodput over $SECONDS_RUN s after $OMIT s), qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-5mbit}
BURST=${BURST:-10kb}
LATENCY=${LATENCY:-50ms}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
set -x
on receiver tc qdisc add dev eth0 root netem delay 10ms limit 10000
on router tc qdisc add dev eth1 root tbf rate "$RATE" burst "$BURST" latency "$LATENCY"
on router tc qdisc show dev eth1 >qdisc_setup.txt
on receiver iperf3 -s -D -1
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3.json 2>iperf3.err
on router tc -s qdisc show dev eth1 >qdisc_end.txt
