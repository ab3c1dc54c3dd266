# netem delay: ping across the router with `netem delay $DELAY` on its egress toward the
# receiver. The testbed's own RTT is measured first (no netem), then the same ping with it,
# so the delay netem adds is the difference. airqueue's side:
# tools/kernel-vm/scenarios/netem_delay.toml. Results:
#   ping_idle.txt   $IDLE_COUNT pings without netem
#   ping_netem.txt  $COUNT pings with netem delay $DELAY (plus $JITTER if set)
#   qdisc_end.txt   the netem qdisc's counters
. /testbed/testbed.sh
DELAY=${DELAY:-20ms}
JITTER=${JITTER:-}
COUNT=${COUNT:-50}
IDLE_COUNT=${IDLE_COUNT:-20}
INTERVAL=${INTERVAL:-0.1}
set -x
on sender ping -c "$IDLE_COUNT" -i "$INTERVAL" "$RECEIVER_IP" >ping_idle.txt
on router tc qdisc add dev eth1 root netem delay "$DELAY" $JITTER
on router tc qdisc show dev eth1 >qdisc_setup.txt
on sender ping -c "$COUNT" -i "$INTERVAL" "$RECEIVER_IP" >ping_netem.txt
on router tc -s qdisc show dev eth1 >qdisc_end.txt
