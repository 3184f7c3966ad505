# replace.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9750-md-takes-the-replacement-stripe-made.bats.  ARGS are the cases, one
# word each, "ACTION:DISKS", taking the attached disks in order:
#   judge:N    md assembles the N disks as at boot (no --run), reads the
#	array whole and checks it: "J: case=C started=0|1 degraded=N
#	sync=WORD sha256=HEX mismatch_cnt=N" (sync: md's sync_action just
#	after assembly, idle when md starts no resync or recovery).
#   resume:N   the same, after md has finished what the superblocks say is
#	under way (an interrupted replace): "J: ..." with sync as md found
#	it on assembly.
#   replace:N  md's own replace: the first N-1 disks are the array, the
#	last a new disk: mdadm --add, then --replace of role 2 --with it,
#	waited for: "M: case=C replaced=0|1 degraded=N".

# sysfs FILE: md's FILE for /dev/md0, or - when there is none.
sysfs() {
	cat "/sys/block/md0/md/$1" 2> /dev/null || echo -
}

# settle: waits for a sync action md has under way on /dev/md0 to end.
settle() {
	sleep 1
	mdadm --wait /dev/md0 > /dev/null 2>&1
	true
}

judge() {
	local started=1 sync sum
	# shellcheck disable=SC2086 # the member list is words
	mdadm --assemble /dev/md0 $2 2>&1 | sed "s/^/D: $1 | /"
	case $(sysfs array_state) in inactive | -) started=0 ;; esac
	sync=$(sysfs sync_action)
	[ "$3" = resume ] && settle
	sum=$(sha256sum /dev/md0 2> /dev/null | cut -d' ' -f1)
	echo check > /sys/block/md0/md/sync_action 2> /dev/null
	settle
	echo "J: case=$1 started=$started degraded=$(sysfs degraded) sync=$sync sha256=${sum:--} mismatch_cnt=$(sysfs mismatch_cnt)"
	mdadm --detail /dev/md0 2>&1 | sed "s/^/D: $1 | /"
	mdadm --stop /dev/md0 > /dev/null 2>&1
}

replace() {
	local array="" new="" old d replaced=0
	for d in $2; do
		array="$array $new"
		new=$d
	done
	# shellcheck disable=SC2086 # words, spaces collapsed
	old=$(echo $array | cut -d' ' -f3)
	# shellcheck disable=SC2086
	mdadm --assemble /dev/md0 $array 2>&1 | sed "s/^/D: $1 | /"
	mdadm /dev/md0 --add "$new" 2>&1 | sed "s/^/D: $1 | /"
	mdadm /dev/md0 --replace "$old" --with "$new" 2>&1 | sed "s/^/D: $1 | /"
	settle
	mdadm --detail /dev/md0 | grep -q "active sync.*$new" && replaced=1
	echo "M: case=$1 replaced=$replaced degraded=$(sysfs degraded)"
	mdadm --detail /dev/md0 2>&1 | sed "s/^/D: $1 | /"
	mdadm --stop /dev/md0 > /dev/null 2>&1
}

at=1
c=0
for job in "$@"; do
	n=${job#*:}
	disks=$(echo "$MDVM_DISKS" | tr ' ' '\n' | sed -n "${at},$((at + n - 1))p" | tr '\n' ' ')
	t0=$(date +%s)
	case ${job%%:*} in
	judge) judge $c "$disks" ;;
	resume) judge $c "$disks" resume ;;
	replace) replace $c "$disks" ;;
	esac
	echo "T: case=$c seconds=$(($(date +%s) - t0))"
	at=$((at + n))
	c=$((c + 1))
done
