# helpers.bash for the real-md tests: the bats helpers plus the VM harness.

load ../bats/helpers

MDVM=${MDVM:-$TOP/../shared/mdvm/mdvm}
# where the VMs' output is kept to look at after the run
MD_LOGS=${STRIPE_LOGS:-$TOP/build/test-logs-md}

# md_there: the VM harness is here and set up (setup_file makes nothing
# otherwise, and md_ready in setup skips each test, saying why).
md_there() {
	[ -x "$MDVM" ] && [ -e "${MDVM_CACHE:-/var/cache/mdvm}/vmlinuz" ]
}

md_ready() {
	[ -x "$MDVM" ] || skip "no md VM harness ($MDVM)"
	[ -e "${MDVM_CACHE:-/var/cache/mdvm}/vmlinuz" ] || skip "md VM not set up (run ../shared/mdvm/mdvm setup as root)"
}

# vm_slot CMD...: CMD (a VM boot) once one of MD_VM_SLOTS places is free.
# make check-md runs its spec files side by side, and each boot emulates a
# CPU: more of them at once than the machine has CPUs only makes each one
# slower, towards its time-out.  The places are locks on files (flock -n,
# as util-linux's tests take their resources).  Those waiting queue on one
# more lock, blocked, so that only the first of them looks for a free place
# (twice a second): a dozen spec files polling the places took a tenth of
# a CPU each, a good part of the run.
MD_VM_SLOTS=${MD_VM_SLOTS:-$(nproc)}
MD_LOCKS=${MD_LOCKS:-$TOP/build/md-locks}
vm_slot() {
	local i rc queue place
	mkdir -p "$MD_LOCKS"
	exec {queue}> "$MD_LOCKS/queue"
	flock "$queue"
	while :; do
		for ((i = 0; i < MD_VM_SLOTS; i++)); do
			exec {place}> "$MD_LOCKS/vm$i"
			if flock -n "$place"; then
				exec {queue}>&-
				"$@" {place}>&-
				rc=$?
				exec {place}>&-
				return $rc
			fi
			exec {place}>&-
		done
		sleep 0.5
	done
}

# vm_run ARGS...: "$MDVM" run ARGS in a slot (vm_slot), booted again when
# the emulated kernel panicked before its init ran: on a loaded host TCG's
# timer can miss the kernel's IO-APIC check ("IO-APIC + timer doesn't
# work"), and then no script ran and no disk was touched.  Its output
# (with the failed boot's console, if any) on stdout.
vm_run() {
	local out rc try
	out=$(mktemp "${TMPDIR:-/tmp}/vm_run.XXXXXX")
	for try in 1 2 3; do
		vm_slot "$MDVM" run "$@" > "$out" 2>&1
		rc=$?
		cat "$out"
		[ $rc = 125 ] && grep -q "Kernel panic - not syncing: IO-APIC" "$out" || break
		echo "vm_run: the VM's kernel panicked as it booted (a timer missed under load): boot $((try + 1))"
	done
	rm -f "$out"
	return $rc
}

# vm_value FILE HEAD KEY: the value of KEY=value on the first line of FILE
# (a VM's report) that starts with HEAD and a space, such as "J: set=1".
vm_value() {
	sed -n "s/^$2 .*\b$3=\([^ ]*\).*/\1/p" "$1" | head -n 1
}
