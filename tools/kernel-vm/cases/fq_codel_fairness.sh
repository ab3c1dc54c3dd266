# fq_codel flow fairness and standing delay on a rate-limited router (LEAF=sfq: the same
# with an sfq leaf).
#
# The router's egress toward the receiver is HTB at $RATE (one default class) with a $LEAF
# leaf (default fq_codel, Linux's defaults); the receiver's egress (the ACK path) is netem delay $ACK_DELAY, so the base RTT is
# about that. $FLOWS greedy TCP flows (iperf3 -P, CUBIC, Linux's defaults) run $SECONDS_RUN s
# after $OMIT s of warm-up; a ping every $PING_INTERVAL s (0.1) crosses the same queue (a sparse flow).
# airqueue's side: tools/kernel-vm/scenarios/fq_codel_fairness.toml. Results:
#   iperf3.json     per-stream bytes (Jain's index, total goodput)
#   ping_idle.txt   RTT before the load (the testbed's own RTT)
#   ping_load.txt   RTT of the sparse flow under load (a ping every $PING_INTERVAL s)
#   ping_random.txt the same from single pings at random phases (0.05-0.5 s apart)
#   qdisc.txt       `tc -s qdisc show dev eth1` on the router every 0.5 s (the leaf's backlog)
#   ss.txt          `ss -tin` on the sender every second (the bulk flows' srtt)
#   qdisc_end.txt   the final counters (drops, ecn marks, new_flow_count)
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
FLOWS=${FLOWS:-4}
SECONDS_RUN=${SECONDS_RUN:-20}
OMIT=${OMIT:-3}
PING_INTERVAL=${PING_INTERVAL:-0.1}
ACK_DELAY=${ACK_DELAY:-10ms}
BURST=${BURST:-}
LEAF=${LEAF:-fq_codel}
set -x
on receiver tc qdisc add dev eth0 root netem delay "$ACK_DELAY" limit 10000
on router tc qdisc add dev eth1 root handle 1: htb default 10
on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE" ${BURST:+burst $BURST cburst $BURST}
on router tc qdisc add dev eth1 parent 1:10 handle 10: $LEAF
on router tc qdisc show dev eth1 >qdisc_setup.txt
on sender ping -c 20 -i 0.1 "$RECEIVER_IP" >ping_idle.txt
on receiver iperf3 -s -D -1
sleep 1
# iperf3 runs $OMIT s unmeasured, then $SECONDS_RUN s measured.
on sender iperf3 -c "$RECEIVER_IP" -P "$FLOWS" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3.json 2>iperf3.err &
client=$!
sleep "$OMIT"
on sender ping -i "$PING_INTERVAL" -w "$SECONDS_RUN" "$RECEIVER_IP" >ping_load.txt &
pinger=$!
# Probes at random phases too: one ping at a time, 0.05-0.5 s apart at random. (The periodic
# ping locks onto the shaper's departure cycle in this deterministic VM: see
# docs/kernel-reference.md.) Each line of ping_random.txt is one probe's RTT summary.
on sender bash -c "end=\$((SECONDS + $SECONDS_RUN)); while [ \$SECONDS -lt \$end ]; do
  ping -n -q -c 1 -W 1 $RECEIVER_IP | grep rtt; sleep \$(printf 0.%03d \$((RANDOM % 450 + 50))); done" >ping_random.txt &
prober=$!
end=$(($(date +%s) + SECONDS_RUN))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
  echo "t $(cut -d' ' -f1 /proc/uptime)" >>qdisc.txt
  on router tc -s qdisc show dev eth1 >>qdisc.txt
  n=$((n + 1))
  if [ $((n % 2)) -eq 0 ]; then
    echo "t $(cut -d' ' -f1 /proc/uptime)" >>ss.txt
    on sender ss -tin dst "$RECEIVER_IP" >>ss.txt
  fi
  sleep 0.5
done
wait "$pinger"
wait "$prober"
wait "$client"
on router tc -s qdisc show dev eth1 >qdisc_end.txt
on router tc -s class show dev eth1 >>qdisc_end.txt
