/* offsets: mdadm's data offsets below where the data was seen to begin. */
#include "md/super.h"
#include "probe/offsets.h"

#define MIB_SECTORS 2048u
#define SMALLEST_CHUNK 8u            /* sectors: 4 KiB */
#define HEADROOM_CHUNK (1u << 17)    /* sectors: from 64 MiB on a chunk no longer moves the offset */

static const uint64_t mdadm_offsets[] = { 262144, 4096, 2048, 0 };

static int add(uint64_t *out, int k, uint64_t sectors, uint64_t first)
{
	if (sectors * 512 > first)
		return k;
	for (int i = 0; i < k; i++)
		if (out[i] == sectors)
			return k;
	out[k] = sectors;
	return k + 1;
}

static void largest_first(uint64_t *out, int k)
{
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && out[j - 1] < out[j]; j--) {
			uint64_t t = out[j - 1];
			out[j - 1] = out[j];
			out[j] = t;
		}
}

/* mdadm keeps room for two chunks of reshape headroom before 1.1/1.2's
 * data, so on small members a large chunk moves the data (3 MiB for 1 MiB
 * chunks on 32 MiB members): the offset create would pick for each chunk. */
static int add_chunk_offsets(uint64_t *out, int k, uint64_t member_bytes, uint64_t first)
{
	for (uint32_t chunk = SMALLEST_CHUNK; chunk <= HEADROOM_CHUNK; chunk <<= 1)
		k = add(out, k, super1_ops.default_data_offset(2, member_bytes / 512, chunk), first);
	return k;
}

int probe_offsets(const struct probe_hints *h, uint64_t member_bytes, uint64_t first, uint64_t *out)
{
	int k = 0;

	if (h->data_offset != UINT64_MAX)
		return add(out, 0, h->data_offset, UINT64_MAX / 1024);
	for (unsigned i = 0; i < sizeof(mdadm_offsets) / sizeof(mdadm_offsets[0]); i++)
		k = add(out, k, mdadm_offsets[i], first);
	if (member_bytes)
		k = add_chunk_offsets(out, k, member_bytes, first);
	if (h->deep)
		for (uint64_t mib = 1; mib <= 256; mib++)
			k = add(out, k, mib * MIB_SECTORS, first);
	largest_first(out, k);
	return k;
}
