# htb ceil: two UDP flows (iperf3 -u, $SIZE B datagrams, $OFFER each) into two HTB leaves
# under a 10 Mbit parent, chosen by u32 on the destination port: 1:10 rate $RATE_A ceil
# $CEIL_A (port 5201), 1:20 rate $RATE_B ceil 10mbit (port 5202); each leaf HTB's default
# pfifo (txqueuelen 1000). Both saturate: each gets its rate, the excess is split by
# quantum, up to each ceil (see docs/kernel-reference.md for what a gets). airqueue's side:
# scenarios/htb_ceil.toml. Results: server_hi.json, server_lo.json (leaves a and b: what
# arrived each second), classes_end.txt.
. /testbed/testbed.sh
RATE_A=${RATE_A:-2mbit}
CEIL_A=${CEIL_A:-4mbit}
RATE_B=${RATE_B:-2mbit}
OFFER=${OFFER:-8M}
SIZE=${SIZE:-1448}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
set -x
on router tc qdisc add dev eth1 root handle 1: htb default 20
on router tc class add dev eth1 parent 1: classid 1:1 htb rate 10mbit ceil 10mbit
on router tc class add dev eth1 parent 1:1 classid 1:10 htb rate "$RATE_A" ceil "$CEIL_A"
on router tc class add dev eth1 parent 1:1 classid 1:20 htb rate "$RATE_B" ceil 10mbit
on router tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match ip dport 5201 0xffff flowid 1:10
on router tc filter add dev eth1 parent 1: protocol ip prio 1 u32 match ip dport 5202 0xffff flowid 1:20
on receiver iperf3 -s -1 -J -p 5201 >server_hi.json 2>server_hi.err &
on receiver iperf3 -s -1 -J -p 5202 >server_lo.json 2>server_lo.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -p 5201 -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_hi.json 2>iperf3_hi.err &
a=$!
on sender iperf3 -c "$RECEIVER_IP" -p 5202 -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_lo.json 2>iperf3_lo.err &
b=$!
wait "$a" "$b"
sleep 2
on router tc -s class show dev eth1 >classes_end.txt
wait
