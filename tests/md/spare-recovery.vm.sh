# spare-recovery.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9700-md-rebuilds-onto-spares-as-stripe-does.bats.  The eight disks are
# two copies of one raid5 of four members that lost its role 2, with the
# array's hot spare last:
#   the first four: md assembles them degraded (--run) and recovers onto
#	its spare, as it does by itself; "M: recovered degraded=N" once done.
#   the last four: what stripe-rebuild made of the other copy; md
#	assembles them as at boot (no --run), reads them whole and checks
#	them: "S: started=0|1 degraded=N sha256=HEX mismatch_cnt=N".

# members N: the N-th four of the attached disks.
members() {
	echo "$MDVM_DISKS" | tr ' ' '\n' | sed -n "$(($1 * 4 + 1)),$(($1 * 4 + 4))p" | tr '\n' ' '
}

# settle MD: waits for md's recovery or check on MD to start and to end.
settle() {
	sleep 1
	mdadm --wait "$1" > /dev/null 2>&1
	true
}

# shellcheck disable=SC2046 # the member list is words
mdadm --assemble --run /dev/md0 $(members 0) 2>&1 | sed 's/^/D: /'
settle /dev/md0
echo "M: recovered degraded=$(cat /sys/block/md0/md/degraded 2> /dev/null || echo -)"
mdadm --detail /dev/md0 2>&1 | sed 's/^/D: /'
mdadm --stop /dev/md0 > /dev/null 2>&1

# shellcheck disable=SC2046
mdadm --assemble /dev/md1 $(members 1) 2>&1 | sed 's/^/D: /'
state=$(cat /sys/block/md1/md/array_state 2> /dev/null || echo inactive)
started=1
[ "$state" = inactive ] && started=0
sum=$(sha256sum /dev/md1 2> /dev/null | cut -d' ' -f1)
echo check > /sys/block/md1/md/sync_action 2> /dev/null
settle /dev/md1
echo "S: started=$started degraded=$(cat /sys/block/md1/md/degraded 2> /dev/null || echo -) sha256=${sum:--} mismatch_cnt=$(cat /sys/block/md1/md/mismatch_cnt 2> /dev/null || echo -)"
mdadm --stop /dev/md1 > /dev/null 2>&1
