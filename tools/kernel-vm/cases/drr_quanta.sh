# drr's byte shares: two UDP flows (iperf3 -u, $SIZE B datagrams, $OFFER each; SIZE_B: the
# second flow's datagrams, default $SIZE) into an HTB
# class of $RATE whose leaf is `drr`, with classes 10:1 (quantum $QUANTUM_A) and 10:2
# (quantum $QUANTUM_B), u32 on the destination port (5201 -> 10:1, 5202 -> 10:2), each
# class's default child (pfifo, limit txqueuelen 1000). Both classes stay backlogged, so
# they share the class in proportion to their quanta. airqueue's side:
# scenarios/drr_quanta.toml. Results: server_hi.json (class 10:1), server_lo.json (10:2),
# iperf3_hi.json, iperf3_lo.json, qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
OFFER=${OFFER:-8M}
SIZE=${SIZE:-1448}
SIZE_B=${SIZE_B:-$SIZE}
QUANTUM_A=${QUANTUM_A:-1514}
QUANTUM_B=${QUANTUM_B:-3028}
SECONDS_RUN=${SECONDS_RUN:-12}
OMIT=${OMIT:-3}
set -x
on router tc qdisc add dev eth1 root handle 1: htb default 10
on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE"
on router tc qdisc add dev eth1 parent 1:10 handle 10: drr
on router tc class add dev eth1 parent 10: classid 10:1 drr quantum "$QUANTUM_A"
on router tc class add dev eth1 parent 10: classid 10:2 drr quantum "$QUANTUM_B"
on router tc filter add dev eth1 parent 10: protocol ip prio 1 u32 match ip dport 5201 0xffff flowid 10:1
on router tc filter add dev eth1 parent 10: protocol ip prio 2 u32 match ip dport 5202 0xffff flowid 10:2
on router tc -s -d class show dev eth1 >qdisc_setup.txt
on receiver iperf3 -s -1 -J -p 5201 >server_hi.json 2>server_hi.err &
on receiver iperf3 -s -1 -J -p 5202 >server_lo.json 2>server_lo.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -p 5201 -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_hi.json 2>iperf3_hi.err &
hi=$!
on sender iperf3 -c "$RECEIVER_IP" -p 5202 -u -b "$OFFER" -l "$SIZE_B" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_lo.json 2>iperf3_lo.err &
lo=$!
wait "$hi" "$lo"
sleep 2
on router tc -s qdisc show dev eth1 >qdisc_end.txt
on router tc -s -d class show dev eth1 >>qdisc_end.txt
wait
