# pack.bash: member images packed as partitions into fewer disk images, so
# that one VM boot (25 disks at most) looks at more arrays.
#
#   pack_disk DISK MEMBER...  DISK (made anew) holds the MEMBERs, four at
#			most, as its primary MBR partitions in order: each
#			member's bytes, the same size, one after the other
#			from 1 MiB on.
#
# A VM's hundred members are packed in a few processes a disk: forks, not
# the copying, are what packing costs.

PACK_MEMBERS=4	# an MBR has four primary partitions

# le32 VAR N: N as the printf escapes of 4 little-endian bytes, in VAR.
le32() {
	printf -v "$1" '\\x%02x\\x%02x\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8 & 255)) $(($2 >> 16 & 255)) $(($2 >> 24 & 255))
}

pack_disk() {
	local disk=$1 size start=2048 table='' lba sectors i
	shift
	[ $# -le "$PACK_MEMBERS" ] || { echo "pack_disk: $# members, $PACK_MEMBERS fit" >&2; return 1; }
	for size in $(stat -c %s "$@"); do
		le32 lba $start
		le32 sectors $((size / 512))
		# status 0, no CHS (Linux reads the LBA fields), type 0x83
		table+="\\x00\\x00\\x00\\x00\\x83\\x00\\x00\\x00$lba$sectors"
		start=$((start + size / 512))
	done
	for ((i = $#; i < PACK_MEMBERS; i++)); do
		table+='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
	done
	rm -f "$disk"
	truncate -s 1M "$disk"
	printf '%b\x55\xaa' "$table" | dd of="$disk" bs=1 seek=446 conv=notrunc status=none &&
		cat "$@" >> "$disk" &&
		# 1 MiB after the last member: a 0.90 superblock at its end is
		# then not also one at the end of the whole disk
		truncate -s +1M "$disk"
}
