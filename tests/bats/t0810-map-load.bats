#!/usr/bin/env bats
# stripe-map under load: two writers and a reader work in an ext4 on the
# mapped file (loop-mounted) for STRIPE_MAP_LOAD_SECONDS (20 in make check,
# 60 in make check-full, where the long runs belong); afterwards
# nothing is lost (every file's sha256, also after mapping again) and the
# array is consistent.

bats_require_minimum_version 1.5.0
load helpers
load map-helpers

setup() {
	# a time of load is worth running once: the plain suite runs it
	[ "${STRIPE_SUITE:-plain}" = plain ] || skip "runs in the plain suite only (a soak of load)"
	map_setup
}

teardown() {
	map_teardown
}

# writer NAME END: new files of up to 1 MiB in $FS/NAME until SECONDS
# reaches END and 45 files are written (a loaded machine takes longer, it
# does not write less), each written aside and renamed into place, its sum
# then added to $D/NAME.sums; past 40 files the oldest is deleted (its name
# added to $D/NAME.gone).
writer() {
	local name=$1 end=$2 n=0 old=0
	mkdir "$FS/$name"
	: > "$D/$name.sums"
	: > "$D/$name.gone"
	while ((SECONDS < end || n < 45)); do
		head -c $((RANDOM * 32 + RANDOM % 4096 + 1)) /dev/urandom > "$FS/$name/.tmp"
		mv "$FS/$name/.tmp" "$FS/$name/f$n"
		(cd "$FS" && sha256sum "$name/f$n") >> "$D/$name.sums"
		n=$((n + 1))
		if ((n - old > 40)); then
			rm "$FS/$name/f$old"
			echo "$name/f$old" >> "$D/$name.gone"
			old=$((old + 1))
		fi
	done
}

# reader END: reads files the writers finished with O_DIRECT (so through
# the loop device and the map, not ext4's page cache) and compares their
# sums; files deleted meanwhile are passed over.  Counts in $D/reads.
reader() {
	local end=$1 reads=0 line sum path got
	while ((SECONDS < end)); do
		line=$(cat "$D"/w1.sums "$D"/w2.sums 2>/dev/null | shuf -n 1)
		[ -n "$line" ] || { sleep 0.1; continue; }
		sum=${line%% *} path=${line#*  }
		got=$(dd if="$FS/$path" iflag=direct bs=1M status=none 2>/dev/null | sha256sum) || continue
		[ -e "$FS/$path" ] || continue
		if [ "${got%% *}" != "$sum" ]; then
			echo "reader: $path: sha256 ${got%% *}, written as $sum" >> "$D/reader.err"
		fi
		reads=$((reads + 1))
	done
	echo "$reads" > "$D/reads"
}

# survivors: the sums of the files no writer deleted.
survivors() {
	cat "$D"/w1.gone "$D"/w2.gone | awk 'FNR == NR { gone[$0] = 1; next } !($2 in gone)' - "$D"/w1.sums "$D"/w2.sums
}

@test "two writers and a reader through a loop-mounted ext4 lose nothing, and the array stays consistent" {
	local secs=${STRIPE_MAP_LOAD_SECONDS:-8} end
	[ -z "${STRIPE_FULL:-}" ] || secs=${STRIPE_MAP_LOAD_SECONDS:-60}
	stripe-create -q -l 5 -c 64K --image-size 96M "$D"/m{0,1,2,3}.img
	M=("$D"/m{0,1,2,3}.img)
	map_start "${M[@]}"
	mkfs.ext4 -q -F "$MNT/array"
	mount -o loop "$MNT/array" "$FS"
	end=$((SECONDS + secs))
	local pids=()
	writer w1 "$end" &
	pids+=($!)
	writer w2 "$end" &
	pids+=($!)
	reader "$end" &
	pids+=($!)
	wait "${pids[@]}"
	[ ! -s "$D/reader.err" ] || fail "$(cat "$D/reader.err")"
	[ "$(cat "$D/reads")" -gt 0 ] || fail "the reader read nothing"
	survivors > "$D/live.sums"
	[ "$(wc -l < "$D/live.sums")" -gt 40 ] || fail "the writers wrote only $(wc -l < "$D/live.sums") files"
	(cd "$FS" && sha256sum -c --quiet "$D/live.sums")
	echo "# $secs s: $(cat "$D"/w1.sums "$D"/w2.sums | wc -l) files written, $(wc -l < "$D/live.sums") kept, $(cat "$D/reads") read back with O_DIRECT" >&3
	[ "$(find "$FS"/w1 "$FS"/w2 -type f | wc -l)" -eq "$(wc -l < "$D/live.sums")" ]
	umount "$FS"
	map_stop
	[ "$MAP_RC" -eq 0 ] || fail "stripe-map exited $MAP_RC: $(cat "$D/map.err")"
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial " 0 inconsistent"
	stripe-read "${M[@]}" > "$D/fs.img"
	e2fsck -fn "$D/fs.img"
	rm "$D/fs.img"
	map_start --read-only "${M[@]}"
	mount -o loop,ro "$MNT/array" "$FS"
	(cd "$FS" && sha256sum -c --quiet "$D/live.sums")
}
