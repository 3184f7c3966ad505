#!/usr/bin/env bats
# The command-line contract every tool keeps (../shared/CONVENTIONS.md).

bats_require_minimum_version 1.5.0
load helpers

TOOLS="stripe-examine stripe-read stripe-map"

@test "every tool prints usage on --help to stdout and exits 0" {
	for t in $TOOLS; do
		run --separate-stderr $t --help
		assert_success
		[[ $output == "Usage: $t "* ]] || fail "$t --help: $output"
		[ -z "$stderr" ]
	done
}

@test "every tool prints its version on --version and exits 0" {
	for t in $TOOLS; do
		run $t --version
		assert_success
		assert_output --regexp "^$t \(stripe\) [0-9]+\.[0-9]+"
	done
}

@test "every tool exits 2 on an unknown option" {
	for t in $TOOLS; do
		run $t --no-such-option
		assert_failure 2
	done
}

@test "a usage error is one line and where the help is, in every tool and script" {
	local t
	for t in stripe-create stripe-examine stripe-read stripe-write stripe-check stripe-rebuild stripe-manage stripe-map \
		stripe-bench "$TOP"/tools/stripe-sweep "$TOP"/tools/stripe-mkfs-bench "$TOP"/tools/stripe-demo; do
		run --separate-stderr "$t" --no-such-option
		[ "$status" -eq 2 ] || fail "$t exited $status"
		[ "$stderr" = "${t##*/}: unrecognized option '--no-such-option'"$'\n'"Try '${t##*/} --help'." ] ||
			fail "$t: $stderr"
	done
}

@test "every tool exits 2 when no member is given" {
	for t in $TOOLS; do
		run --separate-stderr $t
		assert_failure 2
		[[ $stderr == *"no members given"* ]]
	done
}

@test "stripe-read of a member that does not exist keeps the cause: No such file or directory" {
	run --separate-stderr stripe-read /nonexistent
	assert_failure 2
	[ "$stderr" = "stripe-read: /nonexistent: No such file or directory" ] || fail "$stderr"
}

@test "stripe-examine of a member that does not exist says so once" {
	run --separate-stderr stripe-examine /nonexistent
	assert_failure 2
	[ -z "$output" ] || fail "stdout: $output"
	[ "$stderr" = "stripe-examine: /nonexistent: No such file or directory" ] || fail "$stderr"
}

@test "stripe-read rejects a size argument that is not a size" {
	run --separate-stderr stripe-read --offset 12Q x.img
	assert_failure 2
	[[ $stderr == *"--offset: '12Q' is not a size"* ]]
}

@test "make install puts tools, scripts, man pages and completion under DESTDIR, and make uninstall removes them" {
	local d=$BATS_TEST_TMPDIR/root
	make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -x "$d/usr/bin/stripe-examine" ]
	[ -x "$d/usr/bin/stripe-read" ]
	[ -f "$d/usr/share/man/man1/stripe-read.1" ]
	[ -f "$d/usr/share/man/man7/stripe.7" ]
	[ -f "$d/usr/share/bash-completion/completions/stripe" ]
	[ -L "$d/usr/share/bash-completion/completions/stripe-read" ]
	[ -x "$d/usr/bin/stripe-rebuild" ] && [ -x "$d/usr/bin/stripe-verify" ] && [ -x "$d/usr/bin/stripe-recover" ]
	[ -f "$d/usr/share/man/man1/stripe-recover.1" ]
	[ -L "$d/usr/share/bash-completion/completions/stripe-verify" ]
	[ ! -e "$d/usr/bin/stripe-deps" ] && [ ! -e "$d/usr/bin/stripe-demo" ]
	make -s -C "$TOP" uninstall DESTDIR="$d" PREFIX=/usr > /dev/null
	[ -z "$(find "$d" -type f -o -type l)" ]
}

# includers HEADER: the library sources that include HEADER (a path under
# lib/, as the includes spell it), by itself or through a header of lib/
# that does, one a line.
includers() {
	local hs=("$1") h n=0
	while [ ${#hs[@]} -ne $n ]; do
		n=${#hs[@]}
		for h in $(grep -lE "#include \"($(IFS='|'; echo "${hs[*]}"))\"" "$TOP"/lib/*/*.h); do
			h=${h#"$TOP"/lib/}
			[[ " ${hs[*]} " == *" $h "* ]] || hs+=("$h")
		done
	done
	grep -lE "#include \"($(IFS='|'; echo "${hs[*]}"))\"" "$TOP"/lib/*/*.c | sed "s|^$TOP/||" | sort
}

@test "a changed header recompiles only the library objects whose sources include it" {
	plain_suite_only
	make -s -q -C "$TOP" all || skip "the plain tree is not built"
	local h want got
	for h in md/bitmap.h md/layout.h; do
		want=$(includers "$h" | sed 's/\.c$/.o/')
		got=$(make -s -n -C "$TOP" -W "lib/$h" all | grep -oE -- '-c -o (\./)?lib/[a-z]+/[a-z0-9_]+\.o' |
			sed -E 's/^-c -o (\.\/)?//' | sort)
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$h: recompiles [$got], included by [$want]"
	done
}

@test "make clean removes every build output the tree holds, the bench helpers too" {
	plain_suite_only
	git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	local list f missing=""
	list=" $(make -s -n -C "$TOP" clean | sed 's|\./||g' | tr '\n' ' ') "
	[[ $list == *" rm -rf build "* ]] || fail "make clean does not remove build/: $list"
	while read -r f; do
		[[ $list == *" $f "* ]] || missing+=" $f"
	done < <(git -C "$TOP" status --ignored --porcelain=v1 | sed -n 's/^!! //p' | grep -v '^build/$')
	for f in tests/bench/fuse_ceiling tests/bench/pread_loop tests/bench/bench_parity lib/libstripe.a; do
		[[ $list == *" $f "* ]] || missing+=" $f"
	done
	[ -z "$missing" ] || fail "left by make clean:$missing"
}
