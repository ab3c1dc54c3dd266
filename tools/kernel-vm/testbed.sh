# The netns testbed of the airqueue kernel VM, sourced by /init and by case scripts.
#
#   sender eth0 10.0.1.2 --- 10.0.1.1 eth0  router  eth1 10.0.2.1 --- 10.0.2.2 eth0 receiver
#
# Each link is a veth pair; every device has its offloads off (tso, gso, gro, checksums), so
# the qdiscs see MTU-sized packets as airqueue does. The router forwards. No qdisc is set:
# veth's default is noqueue, and the case installs what it measures.
#
# Case scripts (run by `sh`, cwd = the results directory, $OUT too) use:
#   on NODE CMD...    run CMD in NODE's namespace (sender, router, receiver)
#   $SENDER_IP $RECEIVER_IP $ROUTER_IN_IP $ROUTER_OUT_IP  (router: eth0 in, eth1 out)
SENDER_IP=10.0.1.2
ROUTER_IN_IP=10.0.1.1
ROUTER_OUT_IP=10.0.2.1
RECEIVER_IP=10.0.2.2
OUT=/results
export SENDER_IP ROUTER_IN_IP ROUTER_OUT_IP RECEIVER_IP OUT

on() {
  ns=$1
  shift
  ip netns exec "$ns" "$@"
}

offloads_off() {
  for feature in tso gso gro tx rx sg; do
    on "$1" ethtool -K "$2" "$feature" off 2>/dev/null
  done
  on "$1" ethtool -k "$2" | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):'
}

testbed_up() {
  set -x
  for ns in sender router receiver; do
    ip netns add "$ns"
    on "$ns" ip link set lo up
  done
  ip -n sender link add eth0 type veth peer name eth0 netns router
  ip -n router link add eth1 type veth peer name eth0 netns receiver
  ip -n sender addr add "$SENDER_IP/24" dev eth0
  ip -n router addr add "$ROUTER_IN_IP/24" dev eth0
  ip -n router addr add "$ROUTER_OUT_IP/24" dev eth1
  ip -n receiver addr add "$RECEIVER_IP/24" dev eth0
  for pair in sender:eth0 router:eth0 router:eth1 receiver:eth0; do
    ip -n "${pair%%:*}" link set "${pair#*:}" up
    offloads_off "${pair%%:*}" "${pair#*:}"
  done
  ip -n sender route add default via "$ROUTER_IN_IP"
  ip -n receiver route add default via "$ROUTER_OUT_IP"
  on router sysctl -w net.ipv4.ip_forward=1
  on sender ping -c 1 -W 5 "$RECEIVER_IP"
  set +x
}
