/* test_probe_offsets: the data offsets the probe tries are those mdadm
 * would have picked: its fixed defaults, the one that depends on the
 * member size and the chunk, a hint alone, and none above the first data. */
#include <stdbool.h>
#include <stdint.h>

#include "probe/offsets.h"
#include "tap.h"

#define MIB (1ull << 20)

static bool has(const uint64_t *offs, int n, uint64_t sectors)
{
	for (int i = 0; i < n; i++)
		if (offs[i] == sectors)
			return true;
	return false;
}

static bool largest_first(const uint64_t *offs, int n)
{
	for (int i = 1; i < n; i++)
		if (offs[i - 1] <= offs[i])
			return false;
	return true;
}

static void test_chunk_moves_the_offset(void)
{
	struct probe_hints h = { .level = -1, .data_offset = UINT64_MAX };
	uint64_t offs[PROBE_MAX_OFFSETS];
	int n = probe_offsets(&h, 32 * MIB, 8 * MIB, offs);

	ok(has(offs, n, 6144), "32 MiB members: 1 MiB chunks' 3 MiB offset is tried");
	ok(has(offs, n, 2048) && has(offs, n, 4096) && has(offs, n, 0), "and mdadm's fixed defaults");
	ok(largest_first(offs, n), "largest first, each once");
	n = probe_offsets(&h, 32 * MIB, 3 * MIB / 2, offs);
	ok(!has(offs, n, 6144) && !has(offs, n, 4096) && has(offs, n, 2048),
	   "none beyond where the first data was seen");
}

static void test_without_members(void)
{
	struct probe_hints h = { .level = -1, .data_offset = UINT64_MAX };
	uint64_t offs[PROBE_MAX_OFFSETS];
	int n = probe_offsets(&h, 0, 512 * MIB, offs);

	ok(n == 4 && offs[0] == 262144 && offs[3] == 0, "no member size: the fixed defaults alone");
}

static void test_hint_alone(void)
{
	struct probe_hints h = { .level = -1, .data_offset = 10240 };
	uint64_t offs[PROBE_MAX_OFFSETS];
	int n = probe_offsets(&h, 32 * MIB, 8 * MIB, offs);

	ok(n == 1 && offs[0] == 10240, "a hinted offset is the only one");
}

int main(void)
{
	test_chunk_moves_the_offset();
	test_without_members();
	test_hint_alone();
	return tap_done();
}
