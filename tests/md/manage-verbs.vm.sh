# manage-verbs.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9850-md-assembles-what-stripe-manage-leaves.bats.  Arguments name the
# sets of disks in order, META:KIND:N (N disks each), copies of one raid5
# of three that stripe-manage changed on the host:
#   A: a spare added (the fourth disk); md assembles them as at boot:
#	"A: meta=M started=0|1 degraded=N spares=N sha256=HEX mismatch_cnt=N"
#   F: the second disk failed; md assembles all three:
#	"F: meta=M started= degraded= failed_in=0|1 sha256= mismatch_cnt="
#   Z: the second disk failed, removed and its superblock zeroed: mdadm
#	--examine of it, mdadm --assemble of all three (refused: "has no
#	superblock - assembly aborted", as after mdadm's own zeroing), then
#	of the other two:
#	"Z: meta=M examine_rc=N all_started=0|1 started= degraded= sha256= mismatch_cnt="

sysfs() {
	cat "/sys/block/md0/md/$1" 2> /dev/null || echo -
}

# judge KIND META DISKS...: assembles DISKS as at boot and says what md made of them.
judge() {
	local kind=$1 meta=$2 second started=1 sum extra=""
	shift 2
	second=$2
	if [ "$kind" = Z ]; then
		mdadm --examine "$second" > /dev/null 2>&1
		extra="examine_rc=$? "
		mdadm --assemble /dev/md0 "$@" 2>&1 | sed "s/^/D: $kind $meta all | /"
		case $(sysfs array_state) in inactive | -) extra="${extra}all_started=0 " ;; *) extra="${extra}all_started=1 " ;; esac
		mdadm --stop /dev/md0 > /dev/null 2>&1
		set -- "$1" "$3"
	fi
	mdadm --assemble /dev/md0 "$@" 2>&1 | sed "s/^/D: $kind $meta | /"
	case $(sysfs array_state) in inactive | -) started=0 ;; esac
	sum=$(sha256sum /dev/md0 2> /dev/null | cut -d' ' -f1)
	case $kind in
	A) extra="spares=$(grep -o '(S)' /proc/mdstat | wc -l) " ;;
	F) extra="failed_in=$(ls -d /sys/block/md0/md/dev-${second#/dev/} 2> /dev/null | wc -l) " ;;
	esac
	cat /proc/mdstat | sed "s/^/D: $kind $meta | /"
	echo check > /sys/block/md0/md/sync_action 2> /dev/null
	sleep 1
	mdadm --wait /dev/md0 > /dev/null 2>&1
	echo "$kind: meta=$meta started=$started degraded=$(sysfs degraded) ${extra}sha256=${sum:--} mismatch_cnt=$(sysfs mismatch_cnt)"
	mdadm --stop /dev/md0 > /dev/null 2>&1
}

set -- "$@"
disks=$MDVM_DISKS
for spec in "$@"; do
	meta=${spec%%:*}
	rest=${spec#*:}
	kind=${rest%%:*}
	n=${rest#*:}
	these=$(echo $disks | tr ' ' '\n' | head -n "$n" | tr '\n' ' ')
	disks=$(echo $disks | tr ' ' '\n' | tail -n +$((n + 1)) | tr '\n' ' ')
	# shellcheck disable=SC2086 # the disk list is words
	judge "$kind" "$meta" $these
done
