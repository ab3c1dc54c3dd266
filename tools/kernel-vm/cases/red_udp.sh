# red's drop curve at one point: UDP offered above the rate (iperf3 -u -b $OFFER, $SIZE B
# datagrams) into an HTB class of $RATE whose leaf is
# `red limit 400000 min $MIN max $MAX avpkt 1000 burst $BURST probability $PROB bandwidth $RATE`.
# The queue's average settles where red drops the excess (1 - rate/offered of the
# packets): p_b = PROB (avg - MIN)/(MAX - MIN) with 2 p_b/(1 + p_b) that fraction, so the
# backlog it keeps is one point of the curve. airqueue's side: scenarios/red_udp.toml.
# Results: server_udp.json (what arrived each second), qdisc.txt (`t UPTIME` + `tc -s qdisc
# show` every 0.5 s: red's backlog and drops), qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
OFFER=${OFFER:-11M}
SIZE=${SIZE:-1448}
MIN=${MIN:-30000}
MAX=${MAX:-90000}
BURST=${BURST:-50}
PROB=${PROB:-0.1}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
set -x
on router tc qdisc add dev eth1 root handle 1: htb default 10
on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE"
on router tc qdisc add dev eth1 parent 1:10 handle 10: red limit 400000 min "$MIN" max "$MAX" avpkt 1000 burst "$BURST" probability "$PROB" bandwidth "$RATE"
on router tc -d qdisc show dev eth1 >qdisc_setup.txt
on receiver iperf3 -s -1 -J >server_udp.json 2>server_udp.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3.json 2>iperf3.err &
client=$!
sleep "$OMIT"
end=$(($(date +%s) + SECONDS_RUN - 1))
while [ "$(date +%s)" -lt "$end" ]; do
  echo "t $(cut -d' ' -f1 /proc/uptime)" >>qdisc.txt
  on router tc -s qdisc show dev eth1 >>qdisc.txt
  sleep 0.5
done
wait "$client"
sleep 2
on router tc -s -d qdisc show dev eth1 >qdisc_end.txt
wait
