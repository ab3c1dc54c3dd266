# prio strict priority under load: two UDP flows (iperf3 -u, $SIZE B datagrams) through a
# prio qdisc under an HTB class of $RATE on the router's egress toward the receiver. u32 on
# the destination port puts 5201 in band 0 (offered $RATE_HI) and 5202 in band 1 (offered
# $RATE_LO); the bands are prio's default children (pfifo, limit txqueuelen 1000). With band
# 0 below the rate, band 1 gets what band 0 leaves; with band 0 above it, band 1 starves.
# LEAF=pfifo_fast: a pfifo_fast leaf instead, no filters: the bands come from the TOS
# byte (iperf3 -S $TOS_HI, $TOS_LO; ip_forward sets skb->priority from it, the priomap
# gives the band: 0x10 -> band 0, 0x08 -> band 2).
# airqueue's side: scenarios/prio_bands.toml (prio_starve.toml, pfifo_fast_bands.toml). Results:
# iperf3_hi.json, iperf3_lo.json (clients), server_hi.json, server_lo.json (servers: what
# arrived over $SECONDS_RUN s after $OMIT s), qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
RATE_HI=${RATE_HI:-6M}
RATE_LO=${RATE_LO:-10M}
SIZE=${SIZE:-1448}
SECONDS_RUN=${SECONDS_RUN:-15}
OMIT=${OMIT:-3}
LEAF=${LEAF:-prio}
TOS_HI=${TOS_HI:-0}
TOS_LO=${TOS_LO:-0}
set -x
on router tc qdisc add dev eth1 root handle 1: htb default 10
on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE"
on router tc qdisc add dev eth1 parent 1:10 handle 10: $LEAF
if [ "$LEAF" = prio ]; then
  on router tc filter add dev eth1 parent 10: protocol ip prio 1 u32 match ip dport 5201 0xffff flowid 10:1
  on router tc filter add dev eth1 parent 10: protocol ip prio 2 u32 match ip dport 5202 0xffff flowid 10:2
fi
on router tc -s qdisc show dev eth1 >qdisc_setup.txt
on receiver iperf3 -s -1 -J -p 5201 >server_hi.json 2>server_hi.err &
on receiver iperf3 -s -1 -J -p 5202 >server_lo.json 2>server_lo.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -p 5201 -u -b "$RATE_HI" -l "$SIZE" -S "$TOS_HI" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_hi.json 2>iperf3_hi.err &
hi=$!
on sender iperf3 -c "$RECEIVER_IP" -p 5202 -u -b "$RATE_LO" -l "$SIZE" -S "$TOS_LO" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3_lo.json 2>iperf3_lo.err &
lo=$!
wait "$hi" "$lo"
sleep 2
on router tc -s qdisc show dev eth1 >qdisc_end.txt
on router tc -s class show dev eth1 >>qdisc_end.txt
wait
