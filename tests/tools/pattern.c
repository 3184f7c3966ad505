/* pattern: test helper printing the fixture data pattern of ../shared/fixtures:
 * each 4096-byte block at array offset B holds "blk=%016x set=NAME\n"
 * (B / 4096) repeated and cut to 4096 bytes.
 *   pattern NAME BYTES [FIRST_BLOCK] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	unsigned long long bytes, blk;
	char line[128], block[4096];

	if (argc < 3) {
		fprintf(stderr, "usage: pattern NAME BYTES [FIRST_BLOCK]\n");
		return 2;
	}
	bytes = strtoull(argv[2], NULL, 0);
	blk = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	for (; bytes; blk++) {
		size_t n = (size_t)snprintf(line, sizeof(line), "blk=%016llx set=%s\n", blk, argv[1]), i;
		size_t out = bytes < sizeof(block) ? (size_t)bytes : sizeof(block);

		for (i = 0; i < sizeof(block); i++)
			block[i] = line[i % n];
		if (fwrite(block, 1, out, stdout) != out)
			return 1;
		bytes -= out;
	}
	return fflush(stdout) ? 1 : 0;
}
