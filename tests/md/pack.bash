# pack.bash: member images packed as partitions into fewer disk images, so
# that one VM boot (25 disks at most) looks at more arrays.
#
#   pack_disk DISK MEMBER...  DISK (made anew) holds the MEMBERs, four at
#			most, as its primary MBR partitions in order: each
#			member's bytes, the same size, from 1 MiB on.

PACK_MEMBERS=4	# an MBR has four primary partitions

# le32 N: N as the printf escapes of 4 little-endian bytes.
le32() {
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}

pack_disk() {
	local disk=$1 m start=2048 sectors table=''
	shift
	[ $# -le "$PACK_MEMBERS" ] || { echo "pack_disk: $# members, $PACK_MEMBERS fit" >&2; return 1; }
	rm -f "$disk"
	for m in "$@"; do
		sectors=$(($(stat -c %s "$m") / 512))
		# sparse: the zeros of a member (most of a degraded or new one)
		# stay holes
		dd if="$m" of="$disk" bs=1M seek=$((start * 512)) oflag=seek_bytes conv=notrunc,sparse status=none ||
			return 1
		# status 0, no CHS (Linux reads the LBA fields), type 0x83
		table+="\\x00\\x00\\x00\\x00\\x83\\x00\\x00\\x00$(le32 $start)$(le32 $sectors)"
		start=$((start + sectors))
	done
	# 1 MiB after the last member: a 0.90 superblock at its end is then
	# not also one at the end of the whole disk
	truncate -s $(((start + 2048) * 512)) "$disk"
	printf '%b' "$table" | dd of="$disk" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$disk" bs=1 seek=510 conv=notrunc status=none
}
