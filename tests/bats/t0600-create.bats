#!/usr/bin/env bats
# stripe-create: arrays of every level, layout and metadata version that
# stripe reads back and the host's mdadm --examine accepts as md's own.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	case_sample 2 2
}

# roundtrip NAME LEVEL LAYOUT META DEVS [CHUNK]: create on 5 MiB images,
# write the fixture pattern over the whole array, read it back, and check
# every member with mdadm --examine.  Prints what differs; silent when right.
# (The examine checks are bash matches, not greps: a sweep calls this
# dozens of times, and on this machine each process costs milliseconds.)
roundtrip() {
	local name=$1 level=$2 layout=$3 meta=$4 devs=$5 chunk=${6:-64K} dir imgs=() i size want got ex
	dir=$BATS_TEST_TMPDIR/$name
	mkdir -p "$dir"
	for ((i = 0; i < devs; i++)); do imgs+=("$dir/d$i.img"); done
	stripe-create -q -l "$level" ${layout:+-p "$layout"} -e "$meta" -c "$chunk" --image-size 5M "${imgs[@]}" ||
		{ echo "$name: create failed"; return; }
	size=$(stripe-examine --json "${imgs[@]}" | jq -r .array.size_bytes)
	"$TTOOLS/pattern" "$name" "$size" > "$dir/pattern"
	stripe-write --progress none -i "$dir/pattern" "${imgs[@]}" || { echo "$name: write failed"; return; }
	want=$(sha "$dir/pattern")
	got=$(stripe-read "${imgs[@]}" | sha)
	[ "$got" = "$want" ] || echo "$name: read back differs"
	for ((i = 0; i < devs; i++)); do
		ex=$(mdadm --examine "${imgs[$i]}" 2>&1) || { echo "$name: mdadm --examine d$i failed: $ex"; continue; }
		ends_line "$ex" "Raid Level : raid$level" || echo "$name: d$i level"
		ends_line "$ex" "Raid Devices : $devs" || echo "$name: d$i devices"
		case $meta in
		0.90) has_line "$ex" "this +$i +[0-9]+ +[0-9]+ +$i +active sync" || echo "$name: d$i role" ;;
		*) ends_line "$ex" "Device Role : Active device $i" || echo "$name: d$i role"
		   ends_line "$ex" "Version : $meta" || echo "$name: d$i version" ;;
		esac
		if [ -n "$layout" ]; then
			ends_line "$ex" "Layout : $(mdadm_layout "$level" "$layout")" ||
				echo "$name: d$i layout ($(grep Layout <<<"$ex"))"
		fi
		if [ "$level" != 1 ]; then
			ends_line "$ex" "Chunk Size : $chunk" || echo "$name: d$i chunk"
		fi
	done
}

# ends_line TEXT STRING: a line of TEXT ends with STRING (grep -q "STRING$").
ends_line() {
	[[ $1$'\n' == *"$2"$'\n'* ]]
}

# has_line TEXT ERE: a line of TEXT starts with a match of ERE (grep -Eq "^ERE").
has_line() {
	local re="(^|"$'\n'")$2"
	[[ $1 =~ $re ]]
}

# How mdadm --examine names a layout we asked for by its short name.
mdadm_layout() {
	case $2 in
	la) echo left-asymmetric ;; ra) echo right-asymmetric ;;
	ls) echo left-symmetric ;; rs) echo right-symmetric ;;
	n2) echo near=2 ;; n3) echo near=3 ;; f2) echo far=2 ;; f3) echo far=3 ;;
	o2) echo offset=2 ;; o3) echo offset=3 ;;
	*) echo "$2" ;;
	esac
}

@test "every level on every metadata version reads back what was written and mdadm accepts it" {
	local out="" levels=(0 1 4 5 6 10) metas=(0.90 1.0 1.1 1.2) l m devs
	for m in "${!metas[@]}"; do
		for l in "${!levels[@]}"; do
			in_sample $((l - m + 4)) 4 || continue
			devs=4
			[ "${levels[l]}" = 1 ] && devs=2
			out+=$(roundtrip "l${levels[l]}-m${metas[m]}" "${levels[l]}" "" "${metas[m]}" "$devs")
		done
	done
	swept
	[ -z "$out" ] || fail "$out"
}

@test "every raid5 layout reads back what was written and mdadm names the layout" {
	local out="" layouts=(left-asymmetric right-asymmetric left-symmetric right-symmetric parity-first parity-last) i
	for i in "${!layouts[@]}"; do
		in_sample "$i" 2 || continue
		out+=$(roundtrip "r5-${layouts[i]}" 5 "${layouts[i]}" 1.2 4)
	done
	swept
	[ -z "$out" ] || fail "$out"
}

@test "every raid6 layout reads back what was written and mdadm names the layout" {
	local out="" i layouts=(left-asymmetric right-asymmetric left-symmetric right-symmetric parity-first
		parity-last ddf-zero-restart ddf-N-restart ddf-N-continue left-asymmetric-6 right-asymmetric-6
		left-symmetric-6 right-symmetric-6 parity-first-6)
	for i in "${!layouts[@]}"; do
		in_sample "$i" 3 || continue
		out+=$(roundtrip "r6-${layouts[i]}" 6 "${layouts[i]}" 1.2 5)
	done
	swept
	[ -z "$out" ] || fail "$out"
}

@test "raid10 near, far and offset layouts read back what was written" {
	local out="" layouts=(n2 n3 f2 f3 o2 o3) i
	# one in two: the two or the three copies of each kind, by seed
	for i in "${!layouts[@]}"; do
		in_sample "$i" 2 || continue
		out+=$(roundtrip "r10-${layouts[i]}" 10 "${layouts[i]}" 1.2 4)
	done
	swept
	out+=$(roundtrip "r10-f2-odd" 10 f2 1.2 3)
	[ -z "$out" ] || fail "$out"
}

@test "the default chunk is 512K and the default metadata 1.2 with mdadm's data offset" {
	local d=$BATS_TEST_TMPDIR
	stripe-create -q -l 5 --image-size 64M "$d"/a.img "$d"/b.img "$d"/c.img
	run mdadm --examine "$d/a.img"
	assert_output --partial "Version : 1.2"
	assert_output --partial "Chunk Size : 512K"
	assert_output --partial "Layout : left-symmetric"
	assert_output --partial "Data Offset : 4096 sectors"
	assert_output --partial "Bad Block Log : 512 entries available at offset 16 sectors"
}

@test "a 1.0 array keeps its superblock 8 KiB from the end, like mdadm" {
	local d=$BATS_TEST_TMPDIR
	stripe-create -q -l 1 -e 1.0 --image-size 8M "$d"/a.img "$d"/b.img
	run mdadm --examine "$d/a.img"
	assert_output --partial "Super Offset : 16368 sectors"
	assert_output --partial "Bad Block Log : 512 entries available at offset -8 sectors"
}

@test "a multi-zone raid0 of members of different sizes reads back in both layouts" {
	local d=$BATS_TEST_TMPDIR layout size
	for layout in original alternate; do
		truncate -s 4160K "$d/$layout-a.img"
		truncate -s 6M "$d/$layout-b.img"
		truncate -s 8M "$d/$layout-c.img"
		stripe-create -q -l 0 -p $layout -c 64K "$d/$layout"-{a,b,c}.img
		size=$(stripe-examine --json "$d/$layout"-{a,b,c}.img | jq -r .array.size_bytes)
		[ "$(stripe-examine --json "$d/$layout"-{a,b,c}.img | jq -r .array.layout_name)" = $layout ]
		"$TTOOLS/pattern" $layout "$size" > "$d/p"
		stripe-write --progress none -i "$d/p" "$d/$layout"-{a,b,c}.img
		[ "$(stripe-read "$d/$layout"-{a,b,c}.img | sha)" = "$(sha "$d/p")" ]
	done
}

@test "a degraded create with missing members reads back what was written" {
	local d=$BATS_TEST_TMPDIR size
	stripe-create -q -l 6 -c 64K --image-size 5M "$d"/a.img missing "$d"/c.img missing "$d"/e.img
	run stripe-examine "$d"/{a,c,e}.img
	assert_failure 1
	assert_output --partial "State : clean, degraded"
	size=$(stripe-examine --json "$d"/{a,c,e}.img | jq -r .array.size_bytes)
	"$TTOOLS/pattern" deg "$size" > "$d/p"
	stripe-write --progress none -i "$d/p" "$d"/{a,c,e}.img
	[ "$(stripe-read -q "$d"/{a,c,e}.img | sha)" = "$(sha "$d/p")" ]
}

@test "spares get superblocks without a role" {
	local d=$BATS_TEST_TMPDIR
	stripe-create -q -l 1 -x 1 --image-size 5M "$d"/a.img "$d"/b.img "$d"/s.img
	run mdadm --examine "$d/s.img"
	assert_output --partial "Device Role : spare"
	run stripe-examine --json "$d"/a.img "$d"/b.img "$d"/s.img
	assert_success
	[ "$(jq -r '.members[2].role' <<<"$output")" = spare ]
}

@test "--uuid, --name and --homehost end up in the superblock" {
	local d=$BATS_TEST_TMPDIR
	stripe-create -q -l 1 --uuid 01234567:89abcdef:01234567:89abcdef -N data --homehost box \
		--image-size 5M "$d"/a.img "$d"/b.img
	run mdadm --examine "$d/a.img"
	assert_output --partial "Array UUID : 01234567:89abcdef:01234567:89abcdef"
	assert_output --partial "Name : box:data"
}

@test "--dry-run --json prints the plan and writes nothing" {
	local d=$BATS_TEST_TMPDIR
	truncate -s 8M "$d"/a.img "$d"/b.img "$d"/c.img
	run stripe-create --dry-run --json -l 5 -c 64K "$d"/a.img "$d"/b.img "$d"/c.img
	assert_success
	[ "$(jq -r .dry_run <<<"$output")" = true ]
	[ "$(jq -r .size_bytes <<<"$output")" = $((2 * 7 * 1024 * 1024)) ]
	[ "$(jq -r '.members[1].data_offset_sectors' <<<"$output")" = 2048 ]
	[ "$(cat "$d"/a.img "$d"/b.img "$d"/c.img | tr -d '\0' | wc -c)" = 0 ]
}

@test "--dry-run --image-size plans members that do not exist yet and leaves none behind" {
	local d=$BATS_TEST_TMPDIR
	truncate -s 8M "$d"/a.img
	run stripe-create --dry-run --json -l 5 -c 64K --image-size 8M "$d"/a.img "$d"/b.img "$d"/c.img
	assert_success
	[ "$(jq -r .size_bytes <<<"$output")" = $((2 * 7 * 1024 * 1024)) ]
	[ -e "$d/a.img" ] && [ ! -e "$d/b.img" ] && [ ! -e "$d/c.img" ]
	[ "$(tr -d '\0' < "$d"/a.img | wc -c)" = 0 ]
}

@test "--assume-clean keeps the data on the members" {
	local d=$BATS_TEST_TMPDIR
	head -c 8M /dev/urandom > "$d/a.img"
	# data past the 1 MiB that 1.2 keeps for its metadata: what is there is not refused
	dd if=/dev/zero of="$d/a.img" bs=1M count=1 conv=notrunc status=none
	cp "$d/a.img" "$d/b.img"
	run --separate-stderr stripe-create -l 1 --assume-clean "$d"/a.img "$d"/b.img
	assert_success
	[ "$(tail -c +$((1048576 + 1)) "$d/a.img" | head -c 4M | sha256sum)" = \
	  "$(tail -c +$((1048576 + 1)) "$d/b.img" | head -c 4M | sha256sum)" ]
	[ "$(tr -d '\0' < "$d/a.img" | wc -c)" -gt 4000000 ]
}

# The write-intent bitmap.  tests/fixtures/md-writes/*bitmap* (and the
# large sets, whose MANIFESTs keep only what mdadm showed) are arrays
# mdadm 4.2 made in ../shared/mdvm; stripe_create= in each MANIFEST is the
# same shape in stripe-create's options.
MDW=$TOP/tests/fixtures/md-writes

# as_made_by_md SET: stripe-create makes SET's array again, in $D/SET/dN.img
# (sparse, of the MANIFEST's member size).
as_made_by_md() {
	local m=$MDW/$1/MANIFEST n size i opts imgs=()
	n=$(sed -n 's/^members=//p' "$m")
	size=$(sed -n 's/^member_size=//p' "$m")
	opts=$(sed -n 's/^stripe_create=//p' "$m")
	mkdir -p "$D/$1"
	for ((i = 0; i < n; i++)); do imgs+=("$D/$1/d$i.img"); done
	# shellcheck disable=SC2086  # opts is a list of options
	stripe-create -q --image-size "${size:-8M}" $opts "${imgs[@]}" 2>/dev/null
}

# md_showed SET examine|-X: what mdadm showed of SET's member0 in the VM.
md_showed() {
	sed -n 's/^#   //p' "$MDW/$1/MANIFEST" | awk -v w="$2" '/^--- /{ p = $3 == w; next } p'
}

# settled: mdadm's lines that two creates of one shape share: not the
# times, device UUID, events, checksum, file name or 0.90 device numbers
# and names.
settled() {
	sed -E -e '/(Creation|Update) Time|Device UUID|Checksum|Events|Filename|^\/|^ *$/d' \
		-e 's/ +\(local to host [^)]*\)//' \
		-e 's/^( *(this|[0-9]+) +[0-9]+) +[0-9]+ +[0-9]+ /\1 - - /' -e 's/ +\/dev\/[a-z0-9]+$//'
}

# bitmap_sector IMG: where mdadm --examine says IMG's bitmap starts.
bitmap_sector() {
	local ex sb bm
	ex=$(mdadm --examine "$1")
	sb=$(sed -n 's/^ *Super Offset : \([0-9]*\) sectors/\1/p' <<<"$ex")
	bm=$(sed -n 's/^ *Internal Bitmap : \(-*[0-9]*\) sectors.*/\1/p' <<<"$ex")
	if [ -z "$sb" ]; then	# 0.90: 4 KiB into the last 64 KiB-aligned 64 KiB
		sb=$(($(stat -c %s "$1") / 65536 * 128 - 128)) bm=8
	fi
	[ -n "$bm" ] && echo $((sb + bm))
}

# bitmap_shown IMG: mdadm -X of IMG's bitmap (the host's mdadm reads a
# regular file as a bitmap file, so the bitmap is cut out first).
bitmap_shown() {
	local at
	at=$(bitmap_sector "$1") || { echo "no bitmap"; return; }
	dd if="$1" of="$1.bitmap" bs=512 skip="$at" count=120 status=none
	mdadm -X "$1.bitmap" 2>&1
}

BITMAP_SETS="r5-4d-64k-1.2-bitmap r5-3d-64k-1.2-bitmap4k r1-2d-1.0-bitmap r10-3d-n2-1.2-bitmap
	r6-4d-64k-1.1-bitmap r5-3d-64k-0.90-bitmap r5-3d-64k-1.0-bitmap8k"
LARGE_SETS="r1-2d-210g-1.2-bitmap r1-2d-210g-1.0-bitmap r1-2d-99g-1.2 r1-2d-120g-1.2-bitmap1m
	r10-3d-101g-1.2-bitmap"

@test "--bitmap=internal makes the superblocks and bitmap mdadm makes, on every metadata version" {
	local set out=""
	D=$BATS_TEST_TMPDIR
	for set in $BITMAP_SETS; do
		as_made_by_md "$set" || { out+=" $set: create failed"; continue; }
		diff <(mdadm --examine "$D/$set/d0.img" | settled) <(md_showed "$set" examine | settled) >/dev/null ||
			out+=" $set: --examine differs"
		# mdadm -X shows a 0.90 bitmap's UUID words swapped to the array's
		# order only on a 0.90 member, not cut out: the next test
		# compares those bytes
		diff <(bitmap_shown "$D/$set/d0.img" | settled | sed '/UUID/d') \
			<(md_showed "$set" -X | settled | sed '/UUID/d') >/dev/null || out+=" $set: -X differs"
	done
	[ -z "$out" ] || fail "$out"
}

# 1.x: ctime 64-71, device UUID 168-183, utime 192-199, events 200-207,
# checksum 216-219 from the superblock; the bitmap's events and events
# cleared at 24-39 from its start.  0.90: ctime 24, utime 128, checksum
# 152, recovery_cp 172 (mdadm writes 0, stripe the clean value, as md
# does on its next superblock write), each disk's device numbers; events
# are equal (1).
@test "a member with a bitmap is mdadm's byte for byte but for times, identities and events" {
	local set sb bm v1 out=""
	D=$BATS_TEST_TMPDIR
	for set in $BITMAP_SETS; do
		as_made_by_md "$set" || { out+=" $set: create failed"; continue; }
		xz -dc "$MDW/$set/member0.img.xz" > "$D/md.img"
		sb=$(mdadm --examine "$D/md.img" | sed -n 's/^ *Super Offset : \([0-9]*\) sectors/\1/p')
		bm=$(bitmap_sector "$D/md.img")
		v1=${sb:+1} sb=${sb:-$((bm - 8))}
		out+=$(cmp -l "$D/md.img" "$D/$set/d0.img" | awk -v sb="$((sb * 512))" -v bm="$((bm * 512))" \
			-v v1="$v1" -v set="$set" '
			{ o = $1 - 1 - sb; b = $1 - 1 - bm }
			b >= 24 && b < 40 { next }
			v1 && ((o >= 64 && o < 72) || (o >= 168 && o < 184) || (o >= 192 && o < 208) || (o >= 216 && o < 220)) { next }
			!v1 && ((o >= 24 && o < 28) || (o >= 128 && o < 132) || (o >= 152 && o < 156) || (o >= 172 && o < 176)) { next }
			!v1 && o >= 512 && o < 4096 && (o % 128 >= 4 && o % 128 < 12) { next }
			{ printf " %s@%d", set, $1 - 1; if (++n == 5) exit }')
	done
	[ -z "$out" ] || fail "differs from what mdadm made:$out"
}

@test "a new bitmap has the superblocks' events, no bit set, --assume-clean or not" {
	local out
	D=$BATS_TEST_TMPDIR
	stripe-create -q -l 5 -c 64K --bitmap=internal --bitmap-chunk=4 --image-size 8M "$D"/a.img "$D"/b.img "$D"/c.img
	out=$(bitmap_shown "$D/a.img")
	ends_line "$out" "Events : 1" || fail "$out"
	ends_line "$out" "Events Cleared : 1" || fail "$out"
	ends_line "$out" "Bitmap : 1792 bits (chunks), 0 dirty (0.0%)" || fail "$out"
	[ "$(events_of "$D/a.img")" = 1 ]
	stripe-create -q -f --assume-clean -l 5 -c 64K --bitmap=internal --bitmap-chunk=4 "$D"/a.img "$D"/b.img "$D"/c.img
	ends_line "$(bitmap_shown "$D/a.img")" "Bitmap : 1792 bits (chunks), 0 dirty (0.0%)"
}

@test "members over 100 GiB get mdadm's bitmap unasked, with the bad-block log and 1.0's data placed around it" {
	local set out=""
	D=$BATS_TEST_TMPDIR
	for set in $LARGE_SETS; do
		as_made_by_md "$set" || { out+=" $set: create failed"; continue; }
		diff <(mdadm --examine "$D/$set/d0.img" | settled) <(md_showed "$set" examine | settled) >/dev/null ||
			out+=" $set: --examine differs"
		diff <(bitmap_shown "$D/$set/d0.img" | settled) <(md_showed "$set" -X | settled | sed 's/.*doesn.t have bitmap/no bitmap/') \
			>/dev/null || out+=" $set: -X differs"
		rm -f "$D/$set"/*.img
	done
	[ -z "$out" ] || fail "$out"
}

@test "--bitmap=none makes no bitmap on members over 100 GiB" {
	D=$BATS_TEST_TMPDIR
	stripe-create -q -l 1 --bitmap=none --image-size 120G "$D"/a.img "$D"/b.img
	run mdadm --examine "$D/a.img"
	assert_line --regexp 'Feature Map : 0x0$'
	refute_line --partial 'Internal Bitmap'
	[ "$(stripe-create --dry-run --json -l 1 --bitmap=none --image-size 120G "$D"/x.img "$D"/y.img | jq .bitmap)" = null ]
}

@test "-c, -z and --data-offset take a bare number as KiB, as mdadm does" {
	D=$BATS_TEST_TMPDIR
	run stripe-create --dry-run --json -l 5 -c 64 -z 102400 --data-offset 2048 --image-size 128M \
		"$D"/a.img "$D"/b.img "$D"/c.img
	assert_success
	[ "$(jq -c '[.chunk_size_bytes, .component_size_sectors, .members[0].data_offset_sectors, .size_bytes]' \
		<<<"$output")" = '[65536,204800,4096,209715200]' ]
}

@test "--bitmap-chunk takes a bare number as KiB, as mdadm does, and K and M as every size" {
	D=$BATS_TEST_TMPDIR
	[ "$(stripe-create --dry-run --json -l 1 -b internal --bitmap-chunk 8 --image-size 8M "$D"/a.img "$D"/b.img |
		jq .bitmap.chunk_bytes)" = 8192 ]
	[ "$(stripe-create --dry-run --json -l 1 -b internal --bitmap-chunk 8K --image-size 8M "$D"/a.img "$D"/b.img |
		jq .bitmap.chunk_bytes)" = 8192 ]
	[ "$(stripe-create --dry-run --json -l 1 -b internal --bitmap-chunk 2M --image-size 8M "$D"/a.img "$D"/b.img |
		jq .bitmap.chunk_bytes)" = 2097152 ]
}

@test "--dry-run --json describes the bitmap: chunk, bits, sectors covered and where it starts" {
	D=$BATS_TEST_TMPDIR
	run stripe-create --dry-run --json -l 10 -c 64K -e 1.0 -b internal --bitmap-chunk 4 --image-size 8M \
		"$D"/a.img "$D"/b.img "$D"/c.img
	assert_success
	[ "$(jq -c .bitmap <<<"$output")" = '{"chunk_bytes":4096,"bits":3048,"sync_size_sectors":24384,"offset_sectors":-16}' ]
}
