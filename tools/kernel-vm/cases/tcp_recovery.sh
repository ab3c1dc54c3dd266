# TCP loss recovery under an AQM or a drop-tail queue (issue 38's testbed): one CUBIC flow to
# one receiver address, eight to another, across a 10 Mbit/s bottleneck on the router's
# egress; 10 ms of netem delay on the receiver's egress (the ACK path).
#
#   QDISC=cake-dual-dsthost     cake bandwidth $RATE besteffort dual-dsthost (root)
#   QDISC=cake-triple-isolate   cake bandwidth $RATE besteffort triple-isolate (root)
#   QDISC=fq_codel              HTB $RATE (one class) with an fq_codel leaf (Linux's defaults)
#   QDISC=pfifo                 HTB $RATE (one class) with a pfifo leaf of $PFIFO_LIMIT packets
#
# The receiver has a second address ($RECEIVER2_IP); iperf3 servers listen on each. $FLOWS_A
# flows go to $RECEIVER_IP (port 5201), $FLOWS_B to $RECEIVER2_IP (port 5202), all from the
# sender, $OMIT s unmeasured then $SECONDS_RUN s measured. A ping every 0.1 s to
# $RECEIVER_IP crosses the same queue during the measured seconds (ping under load).
# airqueue's side: tools/kernel-vm/scenarios/tcp_recovery_*.toml. Results:
#   iperf3_a.json, iperf3_b.json   per-stream goodput and retransmits (measured seconds)
#   netstat_start.txt, netstat_measure.txt, netstat_end.txt
#                                  the sender namespace's /proc/net/snmp and /proc/net/netstat
#                                  before the flows, when measuring starts, after they end
#                                  (TcpRetransSegs, TCPTimeouts, TCPLossProbes, ...)
#   ping_idle.txt, ping_load.txt   RTT before and under load
#   qdisc.txt                      `tc -s qdisc show dev eth1` on the router every 0.5 s
#   qdisc_measure.txt, qdisc_end.txt  the router's counters when measuring starts and at the end
#   dynamics.txt                   every $SAMPLE_S s of the measured period (issue 38's
#                                  kernel-gap study): "t <uptime>", then `ss -tin` in the
#                                  sender (cwnd, ssthresh, rtt, retrans, lost, sacked, unacked,
#                                  delivery rate…) and the receiver (segs_out = ACKs sent
#                                  against data_segs_in), `tc -s qdisc` and `tc -s class`
#                                  (fq_codel's active flow queues below the router's leaf;
#                                  cake's active and decaying flow queues with their COBALT
#                                  state: deficit, count, dropping, drop_next)
#   receiver_netstat_measure.txt, receiver_netstat_end.txt
#                                  the receiver's /proc/net/snmp and /proc/net/netstat
#                                  (TcpOutSegs, DelayedACKs, DelayedACKLocked, ...)
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
QDISC=${QDISC:-cake-dual-dsthost}
FLOWS_A=${FLOWS_A:-1}
FLOWS_B=${FLOWS_B:-8}
SECONDS_RUN=${SECONDS_RUN:-35}
OMIT=${OMIT:-5}
PFIFO_LIMIT=${PFIFO_LIMIT:-100}
RECEIVER2_IP=10.0.2.3
SAMPLE_S=${SAMPLE_S:-0.1}
set -x
on receiver ip addr add "$RECEIVER2_IP/24" dev eth0
on receiver tc qdisc add dev eth0 root netem delay 10ms limit 10000
case "$QDISC" in
  cake-*)
    on router tc qdisc add dev eth1 root cake bandwidth "$RATE" besteffort "${QDISC#cake-}"
    ;;
  fq_codel | pfifo)
    leaf=$QDISC
    [ "$QDISC" = pfifo ] && leaf="pfifo limit $PFIFO_LIMIT"
    on router tc qdisc add dev eth1 root handle 1: htb default 10
    on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE"
    on router tc qdisc add dev eth1 parent 1:10 handle 10: $leaf
    ;;
  *)
    echo "unknown QDISC=$QDISC" >&2
    exit 2
    ;;
esac
on router tc qdisc show dev eth1 >qdisc_setup.txt
on sender sysctl net.ipv4.tcp_congestion_control net.ipv4.tcp_recovery net.ipv4.tcp_frto \
  net.ipv4.tcp_early_retrans net.ipv4.tcp_sack net.ipv4.tcp_ecn >sysctl.txt
on sender ping -c 20 -i 0.1 "$RECEIVER_IP" >ping_idle.txt
on receiver iperf3 -s -D -1 -B "$RECEIVER_IP" -p 5201
on receiver iperf3 -s -D -1 -B "$RECEIVER2_IP" -p 5202
sleep 1
snapshot() {
  on sender cat /proc/net/snmp /proc/net/netstat >"$1"
}
snapshot netstat_start.txt
on sender iperf3 -c "$RECEIVER_IP" -p 5201 -P "$FLOWS_A" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_a.json 2>iperf3_a.err &
a=$!
on sender iperf3 -c "$RECEIVER2_IP" -p 5202 -P "$FLOWS_B" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_b.json 2>iperf3_b.err &
b=$!
sleep "$OMIT"
snapshot netstat_measure.txt
on router tc -s qdisc show dev eth1 >qdisc_measure.txt
on receiver cat /proc/net/snmp /proc/net/netstat >receiver_netstat_measure.txt
sample_end=$(($(date +%s) + SECONDS_RUN))
(
  while [ "$(date +%s)" -lt "$sample_end" ]; do
    echo "t $(cut -d' ' -f1 /proc/uptime)"
    echo "# sender"
    on sender ss -tin state established
    echo "# receiver"
    on receiver ss -tin state established
    echo "# qdisc"
    on router tc -s qdisc show dev eth1
    echo "# class"
    case "$QDISC" in
      cake-*) on router tc -s class show dev eth1 ;;
      *) on router tc -s class show dev eth1 parent 10: ;;
    esac
    sleep "$SAMPLE_S"
  done
) >dynamics.txt 2>&1 &
sampler=$!
on sender ping -i 0.1 -w "$SECONDS_RUN" "$RECEIVER_IP" >ping_load.txt &
pinger=$!
end=$(($(date +%s) + SECONDS_RUN))
while [ "$(date +%s)" -lt "$end" ]; do
  echo "t $(cut -d' ' -f1 /proc/uptime)" >>qdisc.txt
  on router tc -s qdisc show dev eth1 >>qdisc.txt
  sleep 0.5
done
wait "$a" "$b"
snapshot netstat_end.txt
on receiver cat /proc/net/snmp /proc/net/netstat >receiver_netstat_end.txt
wait "$sampler"
on router tc -s qdisc show dev eth1 >qdisc_end.txt
wait "$pinger"
