# netem loss: $COUNT pings $INTERVAL s apart across `netem loss $LOSS` on the router's egress
# toward the receiver (the requests; the replies pass unharmed). airqueue's side:
# tools/kernel-vm/scenarios/netem_loss.toml. Results: ping_loss.txt, qdisc_end.txt.
. /testbed/testbed.sh
LOSS=${LOSS:-5%}
COUNT=${COUNT:-1000}
INTERVAL=${INTERVAL:-0.01}
set -x
on router tc qdisc add dev eth1 root netem loss "$LOSS"
on router tc qdisc show dev eth1 >qdisc_setup.txt
on sender ping -n -q -c "$COUNT" -i "$INTERVAL" -W 1 "$RECEIVER_IP" >ping_loss.txt
on router tc -s qdisc show dev eth1 >qdisc_end.txt
