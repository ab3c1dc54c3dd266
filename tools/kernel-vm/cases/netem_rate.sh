# netem rate: one UDP flow (iperf3 -u -b $OFFER, $SIZE B datagrams) through
# `netem rate $RATE` (limit 1000) on the router's egress toward the receiver. netem's rate
# charges skb->len (with the 14 B Ethernet header on veth). airqueue's side:
# scenarios/netem_rate.toml. Results: server_udp.json (what arrived each second), qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-5mbit}
OFFER=${OFFER:-8M}
SIZE=${SIZE:-1448}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
set -x
on router tc qdisc add dev eth1 root netem rate "$RATE"
on router tc qdisc show dev eth1 >qdisc_setup.txt
on receiver iperf3 -s -1 -J >server_udp.json 2>server_udp.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3.json 2>iperf3.err
sleep 2
on router tc -s qdisc show dev eth1 >qdisc_end.txt
wait
