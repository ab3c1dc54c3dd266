# One queue under a UDP overload: one iperf3 UDP flow ($OFFER, $SIZE B datagrams) into an
# HTB class of $RATE whose leaf is `$LEAF` (e.g. `pfifo limit 100`, `bfifo limit 150000`,
# `pfifo_head_drop limit 100`, `codel`), and a ping every 0.1 s through the same queue while
# the flow is measured. What is measured: the goodput, the leaf's drop fraction, its backlog
# (samples of `tc -s qdisc` every 0.5 s) and the delay of the packets it delivers (the ping's
# RTT less the idle RTT): a tail-drop FIFO delivers packets that waited the whole queue, a
# head-drop FIFO fresher ones. airqueue's side: scenarios/{pfifo,bfifo,pfifo_head_drop,codel}_udp.toml.
# Results: server_udp.json (what arrived each second), ping_idle.txt, ping_load.txt,
# qdisc.txt (`t UPTIME` + `tc -s qdisc show` every 0.5 s), qdisc_end.txt.
. /testbed/testbed.sh
RATE=${RATE:-10mbit}
OFFER=${OFFER:-15M}
SIZE=${SIZE:-1448}
LEAF=${LEAF:-pfifo limit 100}
SECONDS_RUN=${SECONDS_RUN:-12}
OMIT=${OMIT:-3}
set -x
on router tc qdisc add dev eth1 root handle 1: htb default 10
on router tc class add dev eth1 parent 1: classid 1:10 htb rate "$RATE" ceil "$RATE"
# shellcheck disable=SC2086
on router tc qdisc add dev eth1 parent 1:10 handle 10: $LEAF
on router tc -d qdisc show dev eth1 >qdisc_setup.txt
on sender ping -c 20 -i 0.1 "$RECEIVER_IP" >ping_idle.txt
on receiver iperf3 -s -1 -J >server_udp.json 2>server_udp.err &
sleep 1
on sender iperf3 -c "$RECEIVER_IP" -u -b "$OFFER" -l "$SIZE" -t "$SECONDS_RUN" -O "$OMIT" -J >iperf3.json 2>iperf3.err &
client=$!
sleep "$OMIT"
on sender ping -i 0.1 -w "$((SECONDS_RUN - 1))" "$RECEIVER_IP" >ping_load.txt &
pinger=$!
end=$(($(date +%s) + SECONDS_RUN - 1))
while [ "$(date +%s)" -lt "$end" ]; do
  echo "t $(cut -d' ' -f1 /proc/uptime)" >>qdisc.txt
  on router tc -s qdisc show dev eth1 >>qdisc.txt
  sleep 0.5
done
wait "$client" "$pinger"
sleep 2
on router tc -s -d qdisc show dev eth1 >qdisc_end.txt
wait
