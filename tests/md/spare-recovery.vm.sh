# spare-recovery.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9700-md-rebuilds-onto-spares-as-stripe-does.bats.  The disks are pairs of
# fours: two copies of one raid5 of four members that lost its role 2, with
# the array's hot spare last.  For pair P:
#   the first four: md assembles them degraded (--run) and recovers onto
#	its spare, as it does by itself; "M: pair=P degraded=N" once done.
#   the second four: what stripe-rebuild made of the other copy; md
#	assembles them as at boot (no --run), reads them whole and checks
#	them: "S: pair=P started=0|1 degraded=N sha256=HEX mismatch_cnt=N".

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

# sysfs MD FILE: md's FILE for MD, or - when there is none.
sysfs() {
	cat "/sys/block/${1#/dev/}/md/$2" 2> /dev/null || echo -
}

# recover P: md's own recovery of pair P's first copy onto its spare.
recover() {
	# shellcheck disable=SC2046 # the member list is words
	mdadm --assemble --run /dev/md0 $(members $(($1 * 2))) 2>&1 | sed "s/^/D: $1 | /"
	settle /dev/md0
	echo "M: pair=$1 degraded=$(sysfs /dev/md0 degraded)"
	mdadm --stop /dev/md0 > /dev/null 2>&1
}

# judge P: md on what stripe-rebuild made of pair P's second copy.
judge() {
	local started=1 sum
	# shellcheck disable=SC2046
	mdadm --assemble /dev/md1 $(members $(($1 * 2 + 1))) 2>&1 | sed "s/^/D: $1 | /"
	case $(sysfs /dev/md1 array_state) in inactive | -) started=0 ;; esac
	sum=$(sha256sum /dev/md1 2> /dev/null | cut -d' ' -f1)
	echo check > /sys/block/md1/md/sync_action 2> /dev/null
	settle /dev/md1
	echo "S: pair=$1 started=$started degraded=$(sysfs /dev/md1 degraded) sha256=${sum:--} mismatch_cnt=$(sysfs /dev/md1 mismatch_cnt)"
	mdadm --stop /dev/md1 > /dev/null 2>&1
}

pair=0
while [ $((pair * 8)) -lt "$MDVM_NDISKS" ]; do
	recover $pair
	judge $pair
	pair=$((pair + 1))
done
