#!/usr/bin/env bats
# stripe-check --files: on the real-md RAID5 with ext4, each inconsistent or
# unreadable unit is mapped to the file, metadata or free space it hurts,
# reading the filesystem from the members alone (also degraded).

bats_require_minimum_version 1.5.0
load helpers

SET=r5-4d-ext4

setup_file() {
	fixtures_ready
}

setup() {
	case_sample 2 2
	D=$BATS_TEST_TMPDIR
	M=($(copy_set $SET))
	stripe-read "${M[@]}" > "$D/array.img"
}

# member_of ARRAY_BYTE: "ROLE MEMBER_BYTE" of the data there, by md's raid5
# left-symmetric placement and the set's chunk and data offset.
member_of() {
	local n chunk doff c row dd pd
	n=$(manifest $SET raid_devices)
	chunk=$(manifest $SET chunk_bytes)
	doff=$(($(manifest $SET member0.data_offset_sectors) * 512))
	c=$(($1 / chunk))
	row=$((c / (n - 1)))
	dd=$((c % (n - 1)))
	pd=$((n - 1 - row % n))
	echo $(((pd + 1 + dd) % n)) $((doff + row * chunk + $1 % chunk))
}

# corrupt_array_byte ARRAY_BYTE: overwrites 16 bytes of that unit on its member.
corrupt_array_byte() {
	local role off
	read -r role off < <(member_of "$1")
	printf 'CORRUPTED-BLOCK!' | dd of="${M[$role]}" bs=1 seek=$((off + 100)) conv=notrunc status=none
}

# fs_block PATH N: the filesystem block of block N of a file.
fs_block() {
	debugfs -R "blocks $1" "$D/array.img" 2>/dev/null | tr ' ' '\n' | sed -n "$(($2 + 1))p"
}

# free_block: a block the filesystem has free (from its block bitmap), not
# in the first group's metadata.
free_block() {
	debugfs -R "ffb 1 2048" "$D/array.img" 2>/dev/null | awk '/found/ { print $NF }'
}

@test "the array holds the ext4 filesystem of the fixture" {
	run debugfs -R "stat /dir/pattern-1m.bin" "$D/array.img"
	assert_success
	assert_output --partial "Size: 1048576"
}

@test "a corrupted block of dir/pattern-1m.bin is named with its path, inode and file offset" {
	local blk ino
	blk=$(fs_block /dir/pattern-1m.bin 1)
	ino=$(debugfs -R "stat /dir/pattern-1m.bin" "$D/array.img" 2>/dev/null | sed -nE 's/^Inode: ([0-9]+).*/\1/p')
	corrupt_array_byte $((blk * 4096))
	run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "files hurt:"
	assert_output --partial "one of 3 data blocks, or P:"
	assert_output --partial "array byte $((blk * 4096)): file /dir/pattern-1m.bin (inode $ino, file offset 4096)"
	assert_output --partial "1 inconsistent"
}

@test "the check's own report is unchanged by --files" {
	corrupt_array_byte $(($(fs_block /dir/pattern-1m.bin 7) * 4096))
	diff <(stripe-check --progress none "${M[@]}") \
		<(stripe-check --files --progress none "${M[@]}" | grep -v -e '^files hurt:' -e '^  ')
}

@test "without --files nothing is said about files" {
	corrupt_array_byte $(($(fs_block /dir/pattern-1m.bin 1) * 4096))
	run stripe-check --progress none "${M[@]}"
	assert_failure 1
	refute_output --partial "files hurt"
	refute_output --partial "pattern-1m.bin"
	run stripe-check --json --progress none "${M[@]}"
	[ "$(jq '.units[0] | has("files")' <<<"$output")" = false ]
}

@test "--json carries the path in a files array of the unit" {
	local blk
	blk=$(fs_block /dir/pattern-1m.bin 100)
	corrupt_array_byte $((blk * 4096))
	run stripe-check --json --files --progress none "${M[@]}"
	assert_failure 1
	[ "$(jq '.units | length' <<<"$output")" = 1 ]
	[ "$(jq '.units[0].files | length' <<<"$output")" = 3 ]
	jq -e --argjson o $((blk * 4096)) \
		'.units[0].files[] | select(.array_offset_bytes == $o) | .description == "file /dir/pattern-1m.bin (inode 15, file offset 409600)"' \
		<<<"$output" > /dev/null
	[ "$(jq .summary.inconsistent <<<"$output")" = 1 ]
}

@test "a corruption in free space says free space" {
	local blk
	blk=$(free_block)
	[ -n "$blk" ]
	corrupt_array_byte $((blk * 4096))
	run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "array byte $((blk * 4096)): free space"
}

@test "a corruption in the inode table says metadata, with the inodes it holds" {
	local itab
	itab=$(dumpe2fs "$D/array.img" 2>/dev/null | sed -nE 's/^  Inode table at ([0-9]+)-.*/\1/p' | head -n 1)
	[ -n "$itab" ]
	# the second block of the table: inodes 17-32, none in use
	corrupt_array_byte $(((itab + 1) * 4096))
	run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "array byte $(((itab + 1) * 4096)): metadata (inode table of group 0, inodes 17-32)"
}

@test "directories, the journal and the superblock are named" {
	local dirblk jblk
	dirblk=$(fs_block /dir/sub 0)
	jblk=$(debugfs -R "blocks <8>" "$D/array.img" 2>/dev/null | awk '{ print $10 }')
	corrupt_array_byte $((dirblk * 4096))
	corrupt_array_byte $((jblk * 4096))
	corrupt_array_byte 0
	run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "array byte $((dirblk * 4096)): directory /dir/sub (inode"
	assert_output --partial "array byte $((jblk * 4096)): metadata (journal, inode 8)"
	assert_output --partial "array byte 0: metadata (superblock)"
}

@test "an unreadable block of the file is named" {
	local blk role off
	blk=$(fs_block /hello.txt 2)
	read -r role off < <(member_of $((blk * 4096)))
	STRIPE_FAULT_READ="member$role.img:$off:4096" run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "unreadable"
	assert_output --partial "array byte $((blk * 4096)): file /hello.txt (inode 12, file offset 8192)"
}

@test "degraded: with the member holding the inode table missing, files are still named" {
	local itab blk role off gone
	itab=$(dumpe2fs "$D/array.img" 2>/dev/null | sed -nE 's/^  Inode table at ([0-9]+)-.*/\1/p' | head -n 1)
	read -r gone off < <(member_of $((itab * 4096)))
	for blk in $(debugfs -R "blocks /dir/pattern-1m.bin" "$D/array.img" 2>/dev/null); do
		read -r role off < <(member_of $((blk * 4096)))
		[ "$role" != "$gone" ] && break
	done
	rm "${M[$gone]}"
	unset "M[$gone]"
	STRIPE_FAULT_READ="member$role.img:$off:4096" run stripe-check --files --progress none "${M[@]}"
	assert_failure 1
	assert_output --partial "array byte $((blk * 4096)): file /dir/pattern-1m.bin (inode 15, file offset $(((blk - $(fs_block /dir/pattern-1m.bin 0)) * 4096)))"
}

@test "an array without an ext filesystem gets a warning and the check's own exit status" {
	stripe-create -q -l 5 -c 64K --image-size 5M "$D"/x{0,1,2}.img
	head -c 1M /dev/urandom | stripe-write --progress none "$D"/x{0,1,2}.img
	printf 'CORRUPTED-BLOCK!' | dd of="$D/x0.img" bs=1 seek=$((1048576 + 100)) conv=notrunc status=none
	run --separate-stderr stripe-check --files --progress none "$D"/x{0,1,2}.img
	assert_failure 1
	[[ $stderr == *"--files: no ext2/3/4 filesystem on the array"* ]]
	run --separate-stderr stripe-check --json --files --progress none "$D"/x{0,1,2}.img
	assert_failure 1
	[ "$(jq -r .files_error <<<"$output")" = "no ext2/3/4 filesystem on the array" ]
	[ "$(jq '.units[0].files[0].description' <<<"$output")" = null ]
}

@test "a consistent array says no file is hurt" {
	run stripe-check --files --progress none "${M[@]}"
	assert_success
	assert_output --partial "files hurt: none"
}
