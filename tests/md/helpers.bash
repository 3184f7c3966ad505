# helpers.bash for the real-md tests: the bats helpers plus the VM harness.

load ../bats/helpers

AC=$(dirname "${MDVM:-$TOP/../shared/mdvm/mdvm}")/assemble-check

md_ready() {
	[ -x "$AC" ] || skip "no md VM harness ($AC)"
	[ -e "${MDVM_CACHE:-/var/cache/mdvm}/vmlinuz" ] || skip "md VM not set up (run ../shared/mdvm/mdvm setup as root)"
}

# md_assemble MEMBER...: boots md on the members (snapshot: never changes
# them) and leaves its AC: lines in $output.
md_assemble() {
	run "$AC" "$@"
}

# ac KEY: a value from assemble-check's "AC: KEY=value" lines in $output.
ac() {
	sed -n "s/^AC: .*\b$1=\([^ ]*\).*/\1/p" <<<"$output" | head -n 1
}
