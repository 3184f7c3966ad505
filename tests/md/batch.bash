# batch.bash: many arrays made by stripe-create and filled by stripe-write,
# assembled by the real md driver in a few VM boots (batch-assemble.vm.sh),
# and the checks of md's results.
#
#   mk NAME MEMBERS LOSE CREATE-OPTION...  (only one in MD_SAMPLE of
#	them under make check-md, md_sampled; mk_array: the same, without
#	the batch_add; MK_UNWRITTEN=1 mk ...: without the write, the array
#	as stripe-create left it, zeroes throughout)
#	MEMBERS is a count of $MEMBER_SIZE members ("4") or a comma list of
#	member sizes and "missing" ("4M,6M,8M", "4M,missing,4M,4M").  LOSE is
#	"-" or a comma list of member indexes whose files are deleted after
#	the create, before the write.  Creates the array in $ARRAYS/NAME with
#	stripe-create, writes the fixture pattern named NAME over all of it
#	with stripe-write (--run: LOSE leaves roles out on purpose), and
#	records the sha256 of the pattern and of what stripe-read reads back,
#	then hands it to batch_add.  Problems are kept in $ARRAYS/NAME/error.
#   batch_start, batch_end  around the mk calls: md looks at the arrays
#			in VMs of up to $MD_BATCH_DISKS disks, each holding
#			four members as partitions (pack.bash); the VMs'
#			lines end up in $ARRAYS/results.txt.
#   batch_readd NAME	before batch_add: md assembles it without its last
#			member, then re-adds that member and waits for
#			its recovery.
#   md_check NAME...	asserts md assembled each array, read the bytes
#			stripe-read reads and the pattern stripe-write wrote,
#			and found no mismatches in a check and its bitmap
#			up to date; fails listing every array that did not.
#   md_check_detail NAME...  md's view of each array (sysfs and mdadm
#			--detail) is the level, raid devices, chunk, layout
#			and metadata version it was created with.
#   md_check_members NAME... started without --run (as at boot), every
#			present member in sync, the absent ones
#			counted as degraded.
#   md_check_examine NAME... stripe-examine prints the superblock fields
#			mdadm --examine prints of the members md is given.
#   as_is_array NAME MEMBER...  an array of members made elsewhere (the
#			fixtures), with the sha256 stripe-read reads of it.
#   md_got NAME		md's view of the array in V[KEY] (md_view); fails
#			unless md assembled it.

load helpers
load pack

MEMBER_SIZE=${MEMBER_SIZE:-4M}
# mdvm names disks vda..vdz: one is --out's, one the dump's (_batch)
MD_BATCH_DISKS=${MD_BATCH_DISKS:-24}
MD_BATCH_JOBS=${MD_BATCH_JOBS:-2}
MD_BATCH_TIMEOUT=${MD_BATCH_TIMEOUT:-600}
# the VM's memory: the arrays are small, and a VM with less boots faster
MD_BATCH_MEM=${MD_BATCH_MEM:-256}
BATCH_VM_SCRIPT=$BATS_TEST_DIRNAME/batch-assemble.vm.sh
ARRAYS=${ARRAYS:-$BATS_FILE_TMPDIR/arrays}
VMOUT=$ARRAYS/vm	# each VM's output (batch-NN.txt) and out dir (out-NN/)
BATCH_LOGS=${BATCH_LOGS:-$MD_LOGS/$(basename "$BATS_TEST_FILENAME" .bats)}

# bitmap_copy NAME [CHUNK]: a copy of fixture set $SET in $ARRAYS/NAME, its
# bitmap made to count CHUNK bytes a bit when given (r5-4d-bitmap-1.2's
# 64 MiB gives its 7 MiB members one bit; 1 MiB gives seven).  The member
# paths in M.
bitmap_copy() {
	local d=$ARRAYS/$1
	mkdir -p "$d"
	cp "$FIX/$SET"/member*.img "$d/"
	mapfile -t M < <(in_role_order "$d"/member*.img)
	[ -z "${2:-}" ] || bitmap_chunk "$2" "${M[@]}"
}

mk() {
	md_sampled || return 0
	mk_array "$@" && batch_add "$1"
}

# md_sampled: whether the next array mk makes is in make check-md's share
# of a file that sets MD_SAMPLE=N: one in N, in the order made, the share
# picked by STRIPE_SAMPLE_SEED (tests/run-md takes it from the commit, so
# that commits take turns); make check-md-full (STRIPE_FULL) makes them all.
MK_SEQ=0
md_sampled() {
	local i=$((MK_SEQ++)) n=${MD_SAMPLE:-1}
	[ -n "${STRIPE_FULL:-}" ] || (((i + ${STRIPE_SAMPLE_SEED:-0}) % n == 0))
}

# mk_array: mk without handing the array to md yet, for tests that change
# it first (and then call batch_add themselves).
mk_array() {
	local name=$1 members=$2 lose=$3
	shift 3
	local d=$ARRAYS/$name spec i=0 files=() present=() size
	mkdir -p "$d"
	echo "$name" >> "$ARRAYS/list"
	printf '%s\n' "$@" > "$d/opts"
	if [[ $members =~ ^[0-9]+$ ]]; then
		members=$(printf "$MEMBER_SIZE%.0s," $(seq "$members"))
		members=${members%,}
		set -- "$@" --image-size "$MEMBER_SIZE"
	fi
	for spec in ${members//,/ }; do
		if [ "$spec" = missing ]; then
			files+=(missing)
		else
			files+=("$d/m$i.img")
			[[ $* == *--image-size* ]] || truncate -s "$spec" "$d/m$i.img"
		fi
		i=$((i + 1))
	done
	echo "${#files[@]}" > "$d/raid_disks"
	if ! stripe-create --json "$@" "${files[@]}" > "$d/create.json" 2> "$d/create.err"; then
		echo "stripe-create $* failed: $(cat "$d/create.err")" > "$d/error"
		return 0
	fi
	for i in ${lose//,/ }; do
		[ "$i" = - ] || { rm -f "${files[$i]}"; files[$i]=missing; }
	done
	for i in "${files[@]}"; do
		[ "$i" = missing ] || present+=("$i")
	done
	echo $((${#files[@]} - ${#present[@]})) > "$d/missing"
	printf '%s\n' "${present[@]}" > "$d/members"
	size=$(jq -r .size_bytes "$d/create.json")
	echo "$size" > "$d/size"
	if [ -n "${MK_UNWRITTEN:-}" ]; then
		head -c "$size" /dev/zero | sha > "$d/pattern.sha256"
	else
		"$TTOOLS/pattern" "$name" "$size" | sha > "$d/pattern.sha256"
	fi
	if [ -z "${MK_UNWRITTEN:-}" ] &&
		! "$TTOOLS/pattern" "$name" "$size" | stripe-write -q --run --progress none "${present[@]}" 2> "$d/write.err"; then
		echo "stripe-write failed: $(cat "$d/write.err")" > "$d/error"
		return 0
	fi
	stripe-read -q "${present[@]}" 2> "$d/read.err" | sha > "$d/stripe.sha256"
}

# batch_start; batch_add NAME...; batch_end: md looks at the arrays in VMs
# of up to $MD_BATCH_DISKS disks of $PACK_MEMBERS members each,
# $MD_BATCH_JOBS at a time, started as soon as a VM's worth of arrays is
# made (mk calls batch_add).  batch_end waits for them all and gathers
# their lines in $ARRAYS/results.txt; each VM's output is kept in $VMOUT
# and copied to $BATCH_LOGS.
batch_start() {
	rm -rf "$VMOUT"
	mkdir -p "$VMOUT"
	B_NUM=0 B_USED=0 B_JOBS=0 B_ARGS=() B_MEMBERS=()
	declare -gA B_MODE=()
}

# batch_readd NAME: md assembles the array without its last member and
# then re-adds that member (batch-assemble.vm.sh's ":readd"); before
# batch_add NAME.
batch_readd() {
	B_MODE[$1]=readd
}

batch_add() {
	local name members
	for name in "$@"; do
		[ -e "$ARRAYS/$name/error" ] && continue
		mapfile -t members < "$ARRAYS/$name/members"
		[ $((B_USED + ${#members[@]})) -le $((MD_BATCH_DISKS * PACK_MEMBERS)) ] || _batch_launch
		# what mdadm --examine says of the members before md has them
		mdadm --examine "${members[@]}" > "$ARRAYS/$name/md-examine.txt" 2>&1 || true
		B_ARGS+=("$name:${#members[@]}${B_MODE[$name]:+:${B_MODE[$name]}}")
		B_MEMBERS+=("${members[@]}")
		B_USED=$((B_USED + ${#members[@]}))
	done
}

batch_end() {
	_batch_launch
	wait
	cat "$VMOUT"/batch-*.txt > "$ARRAYS/results.txt"
	# a copy to look at after the run (another run may be writing it too)
	rm -rf "$BATCH_LOGS"
	mkdir -p "$BATCH_LOGS"
	cp -r "$VMOUT"/. "$BATCH_LOGS"/ || true
}

_batch_launch() {
	[ "$B_USED" -gt 0 ] || return 0
	if [ "$B_JOBS" -ge "$MD_BATCH_JOBS" ]; then
		wait -n || true
		B_JOBS=$((B_JOBS - 1))
	fi
	_batch "$(printf %02d "$B_NUM")" "${B_ARGS[@]}" -- "${B_MEMBERS[@]}" &
	B_NUM=$((B_NUM + 1)) B_JOBS=$((B_JOBS + 1)) B_USED=0 B_ARGS=() B_MEMBERS=()
}

# _batch NUM NAME:COUNT... -- MEMBER...: the members packed into disks,
# md's look at them in one VM, the disks removed again.
_batch() {
	local b=$1 t0=$SECONDS rc=0 args=() disks=() packs=() i p dump letters=abcdefghijklmnopqrstuvwxyz
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	for ((i = 0; i * PACK_MEMBERS < $#; i++)); do
		p=$VMOUT/disk-$b-$i.img
		pack_disk "$p" "${@:i * PACK_MEMBERS + 1:PACK_MEMBERS}" 2>> "$VMOUT/batch-$b.txt" || rc=$?
		packs+=("$p")
		disks+=(--disk "$p")
	done
	# the dump disk after the packs: room for every array's bytes (no
	# more than its members hold) and a MiB of alignment each (sparse)
	dump=$VMOUT/dump-$b.img
	rm -f "$dump"
	: > "$VMOUT/vm-$b.txt"
	truncate -s $(($(stat -c %s "$@" | awk '{ s += $1 } END { print s }') + ${#args[@]} * 1048576)) "$dump"
	[ $rc = 0 ] && vm_run --mem "$MD_BATCH_MEM" --timeout "$MD_BATCH_TIMEOUT" \
		--out "$VMOUT/out-$b" --out-size 16 "${disks[@]}" --disk "$dump" -- "$BATCH_VM_SCRIPT" \
		--dump=/dev/vd${letters:${#packs[@]}:1} "${args[@]}" > "$VMOUT/vm-$b.txt" 2>&1 || rc=$?
	_dumped_sums "$dump" < "$VMOUT/vm-$b.txt" >> "$VMOUT/batch-$b.txt"
	rm -f "${packs[@]}" "$dump" "$VMOUT/vm-$b.txt"
	echo "T: batch=$b rc=$rc secs=$((SECONDS - t0)) arrays=$(sed -n 's/^R: name=\([^ ]*\).*/\1/p' "$VMOUT/batch-$b.txt" | tr '\n' ' ')" \
		>> "$VMOUT/batch-$b.txt"
}

# _dumped_sums DUMP: the VM's lines from stdin, each "sha256=- dump=MIB"
# of an R line made "sha256=HEX" of the array_size bytes at MIB MiB of DUMP
# (batch-assemble.vm.sh --dump).
_dumped_sums() {
	local line mib size sum
	while IFS= read -r line; do
		if [[ $line == "R: "*" sha256=- dump="* ]]; then
			mib=${line#* dump=} mib=${mib%% *}
			size=${line#* array_size=} size=${size%% *}
			sum=$(tail -c +$((mib * 1048576 + 1)) "$1" | head -c "$size" | sha256sum)
			line=${line/ sha256=- dump=$mib / sha256=${sum%% *} }
		fi
		printf '%s\n' "$line"
	done
}

# md_results: reads $ARRAYS/results.txt into RESULT[NAME] (the "R:" lines).
declare -gA RESULT
md_results() {
	local line name
	RESULT=()
	while IFS= read -r line; do
		[[ $line == "R: name="* ]] || continue
		name=${line#R: name=}
		RESULT[${name%% *}]=$line
	done < "$ARRAYS/results.txt"
}

# md_view NAME: V[KEY] from the array's "R:" line; false if md gave none.
declare -gA V
md_view() {
	local w
	V=()
	[ -n "${RESULT[$1]:-}" ] || return 1
	for w in ${RESULT[$1]#R: }; do
		[[ $w == *=* ]] && V[${w%%=*}]=${w#*=}
	done
	return 0
}

# aget NAME WHAT: the first line of $ARRAYS/NAME/WHAT, in REPLY.
aget() {
	REPLY=
	[ -e "$ARRAYS/$1/$2" ] && read -r REPLY < "$ARRAYS/$1/$2"
	return 0
}

# why NAME: what is known of a failure: the setup error or md's messages.
why() {
	[ -e "$ARRAYS/$1/error" ] && { cat "$ARRAYS/$1/error"; return; }
	[ -n "${RESULT[$1]:-}" ] || { echo "no result from md (see $BATCH_LOGS)"; return; }
	grep "^D: $1 |" "$ARRAYS/results.txt" | head -n 40
}

as_is_array() {
	local d=$ARRAYS/$1
	shift
	mkdir -p "$d"
	printf '%s\n' "$@" > "$d/members"
	stripe-read -q "$@" 2> "$d/read.err" | sha > "$d/stripe.sha256"
}

md_got() {
	md_results
	md_view "$1" || fail "$1: $(why "$1")"
	[ "${V[assembled]}" = 1 ] || fail "$1: md did not assemble it: $(why "$1")"
}

md_check() {
	[ $# -gt 0 ] || fail "no arrays to check"
	local name bad=() stripe pattern size
	md_results
	for name in "$@"; do
		if ! md_view "$name"; then
			bad+=("$name: $(why "$name")")
			continue
		fi
		if [ "${V[assembled]}" != 1 ]; then
			bad+=("$name: md did not assemble it: $(why "$name")")
			continue
		fi
		aget "$name" stripe.sha256; stripe=$REPLY
		aget "$name" pattern.sha256; pattern=$REPLY
		aget "$name" size; size=$REPLY
		[ "${V[sha256]}" = "$stripe" ] ||
			bad+=("$name: md reads sha256 ${V[sha256]}, stripe-read $stripe")
		[ "${V[sha256]}" = "$pattern" ] ||
			bad+=("$name: md reads sha256 ${V[sha256]}, the pattern written has $pattern")
		[ "${V[array_size]}" = "$size" ] ||
			bad+=("$name: md's array is ${V[array_size]} bytes, stripe-create said $size")
		[ "${V[resync_start]}" = none ] ||
			bad+=("$name: md found it needing a resync from sector ${V[resync_start]} (not clean)")
		[ "${V[bitmap_stale]}" = 0 ] ||
			bad+=("$name: md found its write-intent bitmap out of date and resynced it all")
		if [ "${V[level]}" = raid0 ]; then
			[ "${V[mismatch_cnt]}" = n/a ] || bad+=("$name: mismatch_cnt ${V[mismatch_cnt]}")
		else
			[ "${V[mismatch_cnt]}" = 0 ] || bad+=("$name: md's check found mismatch_cnt=${V[mismatch_cnt]}")
		fi
	done
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# want NAME: W[KEY], the md view the array's create options ask for.
# Layout numbers and names are md's and mdadm's (md_p.h, raid5.h, mdadm's
# maps.c), written out here rather than taken from stripe.
declare -gA W
want() {
	local o prev='' level='' chunk=512K layout='' meta=1.2 n lnum lname k bytes
	while read -r o; do
		case $prev in
		-l) level=$o ;; -c) chunk=$o ;; -p) layout=$o ;; -e) meta=$o ;;
		esac
		prev=$o
	done < "$ARRAYS/$1/opts"
	level=raid${level#raid}
	aget "$1" raid_disks; n=$REPLY
	[ "$meta" = 0.9 ] && meta=0.90
	W=([level]=$level [raid_disks]=$n [metadata]=$meta [d_level]=$level [d_raid_devices]=$n [d_version]=$meta)
	case $level in
	raid1)
		W+=([layout]=0 [chunk]=0 [d_chunk]=- [d_layout]=-)
		return ;;
	raid4) lnum=0 lname=- ;;
	raid0)
		case ${layout:-default} in
		original) lnum=1 lname=original ;;
		alternate) lnum=2 lname=alternate ;;
		default)
			# 0.90 has no room for a raid0 layout: md shows -1.  1.x
			# records "original" as mdadm >= 4.3 does on kernels
			# after 5.4 (mdadm 4.2 recorded it only for members of
			# different sizes, and md showed -1 for the others)
			if [ "$meta" = 0.90 ]; then
				lnum=-1 lname=-unknown-
			else
				lnum=1 lname=original
			fi ;;
		esac ;;
	raid10)
		layout=${layout:-n2}
		k=${layout#?}
		case $layout in
		n*) lnum=$((0x100 + k)) lname=near=$k ;;
		f*) lnum=$((0x100 * k + 1)) lname=far=$k ;;
		o*) lnum=$((0x10000 + 0x100 * k + 1)) lname=offset=$k ;;
		esac ;;
	raid5 | raid6)
		case ${layout:-ls} in
		la | left-asymmetric) lnum=0 lname=left-asymmetric ;;
		ra | right-asymmetric) lnum=1 lname=right-asymmetric ;;
		ls | left-symmetric) lnum=2 lname=left-symmetric ;;
		rs | right-symmetric) lnum=3 lname=right-symmetric ;;
		parity-first) lnum=4 lname=$layout ;;
		parity-last) lnum=5 lname=$layout ;;
		ddf-zero-restart) lnum=8 lname=$layout ;;
		ddf-N-restart) lnum=9 lname=$layout ;;
		ddf-N-continue) lnum=10 lname=$layout ;;
		left-asymmetric-6) lnum=16 lname=$layout ;;
		right-asymmetric-6) lnum=17 lname=$layout ;;
		left-symmetric-6) lnum=18 lname=$layout ;;
		right-symmetric-6) lnum=19 lname=$layout ;;
		parity-first-6) lnum=20 lname=$layout ;;
		*) lnum="?$layout" lname="?$layout" ;;
		esac ;;
	esac
	case $chunk in
	*K) bytes=$((${chunk%K} * 1024)) ;;
	*M) bytes=$((${chunk%M} * 1048576)) ;;
	*) bytes=$chunk ;;
	esac
	W+=([layout]=$lnum [chunk]=$bytes [d_chunk]=$chunk [d_layout]=$lname)
}

md_check_detail() {
	[ $# -gt 0 ] || fail "no arrays to check"
	local name k bad=()
	md_results
	for name in "$@"; do
		if ! md_view "$name" || [ "${V[assembled]}" != 1 ]; then
			bad+=("$name: not assembled")
			continue
		fi
		want "$name"
		for k in "${!W[@]}"; do
			[ "${V[$k]:-}" = "${W[$k]}" ] ||
				bad+=("$name: $k is ${V[$k]:-}, created as ${W[$k]}")
		done
	done
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

md_check_members() {
	[ $# -gt 0 ] || fail "no arrays to check"
	local name n miss m bad=() count
	md_results
	for name in "$@"; do
		if ! md_view "$name" || [ "${V[assembled]}" != 1 ]; then
			bad+=("$name: not assembled")
			continue
		fi
		aget "$name" raid_disks; n=$REPLY
		aget "$name" missing; miss=$REPLY
		# boot-time assembly: mdadm starts it without --run only when the
		# superblocks do not count a missing member as active
		[ "${V[norun]:-1}" = 1 ] || bad+=("$name: mdadm --assemble without --run does not start it")
		# raid0 has no "degraded" in sysfs
		[ "${V[degraded]}" = "$miss" ] || { [ "${V[level]}" = raid0 ] && [ "${V[degraded]}" = - ]; } ||
			bad+=("$name: md counts ${V[degraded]} members missing, $miss are")
		count=0
		for m in ${V[members]//,/ }; do
			count=$((count + 1))
			[ "$m" = in_sync ] || bad+=("$name: a member's state (sysfs) is $m: ${V[members]}")
		done
		[ "$count" = $((n - miss)) ] ||
			bad+=("$name: md has members ${V[members]}, $((n - miss)) expected")
		count=0
		for m in ${V[d_members]//,/ }; do
			count=$((count + 1))
			[[ $m == active_sync* ]] || bad+=("$name: a member's state (mdadm --detail) is $m: ${V[d_members]}")
		done
		[ "$count" = $((n - miss)) ] ||
			bad+=("$name: mdadm --detail lists members ${V[d_members]}, $((n - miss)) expected")
		case ${V[d_state]} in
		clean | active) [ "$miss" = 0 ] || bad+=("$name: mdadm --detail says ${V[d_state]} with $miss missing") ;;
		clean,degraded | active,degraded) [ "$miss" != 0 ] || bad+=("$name: mdadm --detail says ${V[d_state]}") ;;
		# assembled --readonly; raid0 has no check that would switch it to read-write
		readonly) [ "${V[level]}" = raid0 ] || bad+=("$name: mdadm --detail says State: readonly") ;;
		*) bad+=("$name: mdadm --detail says State: ${V[d_state]}") ;;
		esac
	done
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}

# names PREFIX: the arrays made whose names start with PREFIX.
names() {
	grep "^$1" "$ARRAYS/list"
}

# md_check_examine NAME...: stripe-examine prints the superblock field lines
# mdadm --examine printed as md was given them, for every member, in the same
# order (the fields t0100-examine compares for the fixtures, with Name).
md_check_examine() {
	[ $# -gt 0 ] || fail "no arrays to check"
	local F='^ *(Magic|Version|Feature Map|Array UUID|Name|Raid Level|Raid Devices|Avail Dev Size|Array Size|Used Dev Size|Data Offset|Super Offset|State|Device UUID|Checksum|Events|Layout|Chunk Size|Device Role|Array State|Bad Block Log|Recovery Offset|Resync Offset|Total Devices|Active Devices|Working Devices|Failed Devices|Spare Devices|Preferred Minor|Persistence) :'
	local name members want=$BATS_TEST_TMPDIR/want got=$BATS_TEST_TMPDIR/got bad=() out
	: > "$want"
	: > "$got"
	for name in "$@"; do
		if [ ! -s "$ARRAYS/$name/md-examine.txt" ]; then
			bad+=("$name: no mdadm --examine output")
			continue
		fi
		mapfile -t members < "$ARRAYS/$name/members"
		echo "== $name" >> "$want"
		cat "$ARRAYS/$name/md-examine.txt" >> "$want"
		echo "== $name" >> "$got"
		stripe-examine "${members[@]}" >> "$got" 2>&1 || true
	done
	# "NAME: field line" for each member's fields; "NAME: member:" for
	# each member's header; stripe-examine's "Array ...:" section left out
	filter() {
		awk -v F="$F" '
			/^== / { name = $2; skip = 0; next }
			/^Array .*:$/ { skip = 1; next }
			skip { next }
			/^[^ ].*:$/ { print name ": member:"; next }
			$0 ~ F { sub(/ +\(local to host [^)]*\)/, ""); sub(/ +$/, ""); print name ": " $0 }' "$1"
	}
	out=$(diff <(filter "$want") <(filter "$got") | grep '^[<>]') || true
	[ -z "$out" ] || bad+=("mdadm --examine (<) and stripe-examine (>) differ:" "$out")
	[ ${#bad[@]} -eq 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
}
