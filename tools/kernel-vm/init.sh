#!/bin/bash
# /init of the airqueue kernel VM (tools/kernel-vm/run.py builds it into the initramfs).
# Loads the modules, builds the sender - router - receiver netns testbed (testbed.sh), runs
# /case/case.sh with a time limit, writes /results as a tar stream onto the raw virtio disk
# /dev/vda (the host unpacks it) and powers off. Everything is in the initramfs: no 9p.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /run /tmp /var/run /results /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo "airqueue-vm: kernel $(uname -r), loading modules"
: >/results/modules.log
while read -r m; do
  insmod "/modules/$m" >>/results/modules.log 2>&1 || echo "insmod $m failed" >>/results/modules.log
done </modules/order
. /case/env
{
  uname -a
  echo "modules loaded: $(wc -l </proc/modules)"
} >/results/kernel.txt
echo "airqueue-vm: testbed"
. /testbed/testbed.sh
testbed_up >/results/testbed.log 2>&1
echo "airqueue-vm: case $CASE_NAME (limit ${CASE_TIMEOUT}s)"
cd /results
start=$(cut -d' ' -f1 /proc/uptime)
timeout "$CASE_TIMEOUT" /bin/bash /case/case.sh >/results/case.stdout 2>/results/case.stderr
echo $? >/results/case.rc
end=$(cut -d' ' -f1 /proc/uptime)
echo "$start $end" >/results/case.uptime
echo "airqueue-vm: case exit $(cat /results/case.rc), writing results"
tar -cf /dev/vda -C /results .
sync
echo "airqueue-vm: done"
poweroff -f
