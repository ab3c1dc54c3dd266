# htb borrowing: two TCP flows (iperf3, CUBIC) into two leaves of equal prio under a 10 Mbit
# parent: leaf 1:10 rate $RATE_A, leaf 1:20 rate $RATE_B, both ceil 10 Mbit, chosen by u32
# on the destination port (5201, 5202), each leaf a pfifo of $LIMIT packets. Both saturate, so each gets its rate and the excess
# is split by quantum (rate/r2q): 2 and 6 Mbit give 2.5 and 7.5 (htb.md). 10 ms netem delay
# on the receiver's egress (the ACK path). airqueue's side: scenarios/htb_borrow.toml.
# Results: iperf3_a.json, iperf3_b.json (goodput over $SECONDS_RUN s after $OMIT s),
# classes_end.txt (`tc -s class show`).
. /testbed/testbed.sh
RATE_A=${RATE_A:-2mbit}
RATE_B=${RATE_B:-6mbit}
SECONDS_RUN=${SECONDS_RUN:-20}
OMIT=${OMIT:-3}
LIMIT=${LIMIT:-100}
set -x
on receiver tc qdisc add dev eth0 root netem delay 10ms limit 10000
on router tc qdisc add dev eth1 root handle 1: htb default 20
on router tc class add dev eth1 parent 1: classid 1:1 htb rate 10mbit ceil 10mbit
on router tc class add dev eth1 parent 1:1 classid 1:10 htb rate "$RATE_A" ceil 10mbit
on router tc class add dev eth1 parent 1:1 classid 1:20 htb rate "$RATE_B" ceil 10mbit
on router tc qdisc add dev eth1 parent 1:10 handle 10: pfifo limit "$LIMIT"
on router tc qdisc add dev eth1 parent 1:20 handle 20: pfifo limit "$LIMIT"
on router tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match ip dport 5201 0xffff flowid 1:10
on router tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match ip dport 5202 0xffff flowid 1:20
on router tc -s class show dev eth1 >classes_setup.txt
on receiver iperf3 -s -D -1 -p 5201
on receiver iperf3 -s -D -1 -p 5202
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -p 5201 -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_a.json 2>iperf3_a.err &
a=$!
on sender iperf3 -c "$RECEIVER_IP" -p 5202 -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_b.json 2>iperf3_b.err &
b=$!
wait "$a" "$b"
on router tc -s class show dev eth1 >classes_end.txt
