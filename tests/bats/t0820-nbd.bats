#!/usr/bin/env bats
# nbdkit-stripe-plugin: the array as an NBD export, judged by real clients:
# nbdinfo describes it, nbdcopy and qemu-img copy out stripe-read's bytes
# for every level and degraded, qemu-io's writes land with parity right,
# trim and zero leave whole rows zero, dirty while served and clean after,
# what may not be served is refused in one line with nothing written, and
# two writers and a reader at once lose nothing.

bats_require_minimum_version 1.5.0
load helpers
load nbd-helpers

# Each case runs once a make check, in one build or the other (both under
# check-full): their time is mostly nbdkit's and the clients' own.  The
# wrapper's case is a shell script's: the plain run's.
setup() {
	if [[ $BATS_TEST_DESCRIPTION == stripe-nbd* ]]; then
		plain_suite_only
	else
		case_sample 2 2
	fi
	nbd_setup
}

teardown() {
	nbd_teardown
}

# make_array CREATE-OPTION...: four 6 MiB members, M holds their paths.
make_array() {
	stripe-create -q "$@" --image-size 6M "$D"/m{0,1,2,3}.img
	M=("$D"/m{0,1,2,3}.img)
}

# array_bytes MEMBER...: the array's size in bytes.
array_bytes() {
	stripe-examine --json "$@" | jq -r .array.size_bytes
}

@test "nbdinfo describes the export: the array's size, writable, flush, trim, zero and multi-conn" {
	make_array -l 5 -c 64K
	nbd_start "${M[@]}"
	run nbdinfo --json "$URI"
	assert_success
	[ "$(jq -r '.exports[0]["export-size"]' <<<"$output")" = "$(array_bytes "${M[@]}")" ]
	jq -e '.exports[0] | .is_read_only == false and .can_flush and .can_trim and .can_zero and
		.can_multi_conn and .can_fua' <<<"$output" >/dev/null || fail "$output"
}

@test "nbdcopy of the whole export gives md's bytes, for every level and degraded" {
	local set sum i=0
	fixtures_ready
	# each level once, and arrays served with roles missing: RAID5 one, RAID6
	# two (its members 0, 2 and 4); md's bytes are the set's array_sha256
	for set in r0-3d-64k-zones-alt-1.2 r1-3d-0.90 r4-4d-64k-1.2 r5-4d-64k-ls-1.2 r6-5d-64k-rs6-1.2 \
		r10-4d-o2-1.2 r5-4d-degraded r6-5d-64k-la-1.2:0,2,4; do
		in_sample $((i++)) 3 || continue
		if [[ $set == *:* ]]; then
			nbd_start -r quiet=true "$FIX/${set%:*}"/member{0,2,4}.img
		else
			nbd_start -r quiet=true "$FIX/$set"/member*.img
		fi
		sum=$(nbdcopy "$URI" - | sha)
		nbd_stop
		[ "$sum" = "$(manifest "${set%:*}" array_sha256)" ] || fail "$set: the export is not md's array"
	done
	swept
}

@test "qemu-img convert from the export gives md's bytes" {
	fixtures_ready
	nbd_start -r "$FIX"/r10-4d-f2-1.2/member*.img
	qemu-img convert -f raw -O raw "$URI" "$D/out.img"
	nbd_stop
	[ "$(sha "$D/out.img")" = "$(manifest r10-4d-f2-1.2 array_sha256)" ]
}

@test "qemu-io writes through the export: dirty while served, clean after, stripe-check finds 0, the bytes read back" {
	make_array -l 6 -c 64K
	nbd_start "${M[@]}"
	[ "$(stripe-examine --json -q "${M[@]}" | jq -r .array.needs_resync)" = true ]
	qemu-io -f raw -c 'write -P 0x5a 12345 200000' -c 'write -P 0xa5 1M 1M' -c 'write -P 0x11 3071k 2k' "$URI" >/dev/null
	nbd_stop
	[ "$NBD_RC" -eq 0 ] || fail "nbdkit exited $NBD_RC: $(cat "$D/nbd.err")"
	[ "$(stripe-examine --json "${M[@]}" | jq -r .array.needs_resync)" = false ]
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial " 0 inconsistent"
	# the same writes on a file of zeroes the array's size
	truncate -s "$(array_bytes "${M[@]}")" "$D/want.img"
	qemu-io -f raw -t unsafe -c 'write -P 0x5a 12345 200000' -c 'write -P 0xa5 1M 1M' -c 'write -P 0x11 3071k 2k' "$D/want.img" >/dev/null
	stripe-read "${M[@]}" | cmp - "$D/want.img"
}

@test "a degraded array is refused for writing without allow-degraded=true: one line, status 2, nothing written" {
	make_array -l 5 -c 64K
	sha "${M[@]}" >"$D/before"
	run -2 "${NBDKIT[@]}" -f -U "$SOCK" "$PLUGIN" "${M[@]:0:3}"
	[ "${#lines[@]}" -eq 1 ] || fail "$output"
	assert_output "nbdkit-stripe-plugin: role 3 is in sync in the superblocks but was not given; give it, or allow-degraded=true to write degraded"
	sha "${M[@]}" | cmp - "$D/before"
}

@test "with allow-degraded=true the degraded array takes writes that md's parity gives back for the missing role" {
	make_array -l 5 -c 64K
	nbd_start allow-degraded=true "${M[@]:0:3}"
	qemu-io -f raw -c 'write -P 0x77 100k 500k' "$URI" >/dev/null
	nbd_stop
	[ "$NBD_RC" -eq 0 ]
	truncate -s "$(array_bytes "${M[@]:0:3}")" "$D/want.img"
	qemu-io -f raw -t unsafe -c 'write -P 0x77 100k 500k' "$D/want.img" >/dev/null
	stripe-read -q "${M[@]:0:3}" | cmp - "$D/want.img"
}

@test "a member held by another writer is refused: one line, status 2, nothing written" {
	make_array -l 6 -c 64K
	nbd_start "${M[@]}"
	sha "${M[@]}" >"$D/before"
	run -2 "${NBDKIT[@]}" -f -U "$D/other.sock" "$PLUGIN" "${M[@]}"
	[ "${#lines[@]}" -eq 1 ] || fail "$output"
	assert_output --regexp "^nbdkit-stripe-plugin: .*/m[0-3]\.img: in use \(locked by another writer\)"
	[ ! -e "$D/other.sock" ]
	sha "${M[@]}" | cmp - "$D/before"
}

@test "trim and zero make whole rows read as zeroes, zero writes the partial rows too, parity stays right" {
	make_array -l 5 -c 64K
	# random bytes over the first 4 MiB, zeroes after
	head -c 4M /dev/urandom >"$D/a.bin"
	stripe-write -q -i "$D/a.bin" "${M[@]}"
	truncate -s "$(array_bytes "${M[@]}")" "$D/want.img"
	dd if="$D/a.bin" of="$D/want.img" conv=notrunc status=none
	nbd_start "${M[@]}"
	# rows are 192 KiB: the trim's whole rows are 1152K-1920K, the zero is all of its range
	qemu-io -f raw -c 'discard 1000k 1000k' -c 'write -z 2500k 700k' "$URI" >/dev/null
	nbd_stop
	qemu-io -f raw -t unsafe -c 'write -z 1152k 768k' -c 'write -z 2500k 700k' "$D/want.img" >/dev/null
	stripe-read "${M[@]}" | cmp - "$D/want.img"
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial " 0 inconsistent"
}

@test "stripe-nbd -r serves read-only: writes refused, the members untouched, superblocks too" {
	make_array -l 6 -c 64K
	sha "${M[@]}" >"$D/before"
	STRIPE_NBDKIT_PLUGIN=$PLUGIN "${NBDKIT[@]:0:${#NBDKIT[@]}-1}" stripe-nbd -r --unix "$SOCK" \
		--pidfile "$D/nbd.pid" "${M[@]}"
	NBD_PID=$(cat "$D/nbd.pid")
	run qemu-io -f raw -c 'write -P 0x55 0 4k' "$URI"
	[[ $output == *"ermission denied"* || $output == *"ead-only"* ]] || fail "qemu-io wrote: $output"
	run nbdinfo --json "$URI"
	kill "$NBD_PID"
	jq -e '.exports[0].is_read_only' <<<"$output" >/dev/null || fail "$output"
	sha "${M[@]}" | cmp - "$D/before"
}

@test "two writers and a reader at once: every write lands, the reader is served, stripe-check finds 0" {
	local size a_end=$((4 * 1048576 + 32768)) a b
	make_array -l 6 -c 64K
	size=$(array_bytes "${M[@]}")
	truncate -s "$size" "$D/want.img"
	# writer A: nbdcopy over 4 connections, [0, a_end); writer B: qemu-io,
	# 2 MiB from a_end in 6 KiB pieces (the row at a_end is both's, rows are
	# 128 KiB, the pieces cross them); the reader copies the whole export
	# meanwhile
	head -c "$a_end" /dev/urandom >"$D/a.bin"
	awk -v lo="$a_end" 'BEGIN { for (o = lo; o < lo + 2097152; o += 6144)
		printf "write -P %d %d 6144\n", o / 6144 % 251, o }' >"$D/b.cmds"
	nbd_start "${M[@]}"
	nbdcopy --connections=4 --requests=16 "$D/a.bin" "$URI" &
	a=$!
	qemu-io -f raw -t writeback "$URI" <"$D/b.cmds" >/dev/null &
	b=$!
	nbdcopy "$URI" "$D/read.img"
	wait "$a" || fail "nbdcopy (writer A) failed"
	wait "$b" || fail "qemu-io (writer B) failed"
	nbd_stop
	[ "$NBD_RC" -eq 0 ] || fail "nbdkit exited $NBD_RC: $(cat "$D/nbd.err")"
	[ "$(stat -c %s "$D/read.img")" -eq "$size" ]
	# what both wrote, on the image the array held before
	dd if="$D/a.bin" of="$D/want.img" conv=notrunc status=none
	qemu-io -f raw -t unsafe "$D/want.img" <"$D/b.cmds" >/dev/null
	stripe-read "${M[@]}" | cmp - "$D/want.img"
	run stripe-check --progress none "${M[@]}"
	assert_success
	assert_output --partial " 0 inconsistent"
}
