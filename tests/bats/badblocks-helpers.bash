# Bad-block logs made as md makes them, for the specs of reading, checking
# and rebuilding around them.

# logged SET N SECTOR: member N of a copy of SET (a 1.x set) logs 8 sectors
# from SECTOR as bad in its bad-block log, as md records a failed write,
# and holds garbage there; the copy's members are in M, in role order.
logged() {
	M=($(copy_set "$1"))
	log_entry "${M[$2]}" 0 "$3"
}

# log_entry FILE SLOT SECTOR [COUNT]: entry SLOT of FILE's log names COUNT
# sectors (8 unless told) from SECTOR, the entries after it are md's
# all-ones filler, the superblock says the log is in use, and the sectors
# hold garbage.
log_entry() {
	local file=$1 slot=$2 count=${4:-8} e i byte bytes="" log
	e=$(($3 << 10 | count))
	log=$((8 + $(od -An -td4 -j $((4096 + 188)) -N4 "$file")))
	# printf -v: a command substitution would fork once a byte
	for ((i = 0; i < 8; i++)); do
		printf -v byte '\\x%02x' $(((e >> (8 * i)) & 255))
		bytes+=$byte
	done
	printf "$bytes" | dd of="$file" bs=1 seek=$((log * 512 + 8 * slot)) conv=notrunc status=none
	head -c $((8 * (511 - slot))) /dev/zero | tr '\0' '\377' |
		dd of="$file" bs=1 seek=$((log * 512 + 8 * slot + 8)) conv=notrunc status=none
	"$TTOOLS/sb-patch" "$file" 8 4 $(($(od -An -tu4 -j $((4096 + 8)) -N4 "$file") | 8))
	head -c $((count * 512)) /dev/urandom | dd of="$file" bs=512 seek="$3" conv=notrunc status=none
}

# log_of FILE: the ranges FILE's bad-block log names, as stripe-examine
# reads them, "START+LENGTH" in sectors, one a line.
log_of() {
	stripe-examine --json "$1" |
		jq -r '.members[0].bad_block_log.ranges[]? | "\(.start_sectors)+\(.length_sectors)"'
}
