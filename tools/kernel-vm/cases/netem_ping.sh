# netem duplicate / reorder: $COUNT pings $INTERVAL s apart across `netem $NETEM` on the
# router's egress toward the receiver (the requests; the replies pass unharmed). Every
# reply is kept (`DUP!` lines: duplicates; each RTT: a request sent at once by `reorder`
# has an RTT near the testbed's own, the rest the delay). airqueue's side:
# scenarios/netem_duplicate.toml, netem_reorder.toml. Results: ping_netem.txt, qdisc_end.txt.
. /testbed/testbed.sh
NETEM=${NETEM:-duplicate 10%}
COUNT=${COUNT:-1000}
INTERVAL=${INTERVAL:-0.01}
set -x
on router tc qdisc add dev eth1 root netem $NETEM
on router tc qdisc show dev eth1 >qdisc_setup.txt
on sender ping -n -c "$COUNT" -i "$INTERVAL" -W 1 "$RECEIVER_IP" >ping_netem.txt
on router tc -s qdisc show dev eth1 >qdisc_end.txt
