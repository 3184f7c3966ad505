# scan-assemble.vm.sh: runs inside the mdvm VM (busybox sh), for
# t9050-md-assembles-from-stripe-scan-lines.bats.  ARGS: the ARRAY lines
# stripe-examine --scan --brief printed on the host for the attached disks,
# one an argument.  They go into mdadm.conf beside its HOMEHOST line, then
# mdadm --assemble --scan starts what they describe, as at boot (no --run,
# no device named).  For every array md then runs, one line
#   "A: uuid=U dev=DEV level=L degraded=N state=S sha256=HEX"
# and "C: conf" before, the file as mdadm read it.

printf '%s\n' "$@" >> /etc/mdadm/mdadm.conf
sed 's/^/C: /' /etc/mdadm/mdadm.conf
mdadm --assemble --scan 2>&1 | sed 's/^/D: /'

# sysfs MD FILE: md's FILE for /dev/MD, or - when there is none.
sysfs() {
	cat "/sys/block/$1/md/$2" 2> /dev/null || echo -
}

# mdadm --detail --scan names each running array and its UUID
mdadm --detail --scan | while read -r word dev rest; do
	[ "$word" = ARRAY ] || continue
	uuid=$(echo "$rest" | sed -n 's/.*UUID=\([0-9a-f:]*\).*/\1/p')
	md=$(basename "$(readlink -f "$dev")")
	sum=$(sha256sum "/dev/$md" 2> /dev/null | cut -d' ' -f1)
	echo "A: uuid=$uuid dev=$dev level=$(sysfs "$md" level) degraded=$(sysfs "$md" degraded) state=$(sysfs "$md" array_state) sha256=${sum:--}"
done
