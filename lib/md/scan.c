/* scan: md members grouped into arrays the way mdadm --examine --scan
 * groups them, so that the ARRAY lines stripe prints are mdadm's. */
#include <stdlib.h>
#include <string.h>

#include "md/scan.h"

/* mdadm's guess_super tries 0.90 first, then 1.x from 1.0 up; a later
 * version wins only with a later creation time. */
static int mdadm_rank(const struct md_super *s)
{
	return s->major == 0 ? 0 : 1 + s->minor;
}

int scan_load(struct dev *dv, struct md_super *sb, struct diag *d)
{
	struct md_super every[SUPER_PLACES];
	int n = super_load_every(dv, every), best = -1, i;

	if (n == 0)
		return super_load(dv, sb, d);
	for (i = 0; i < n; i++)
		if (best < 0 || every[i].ctime > every[best].ctime ||
		    (every[i].ctime == every[best].ctime && mdadm_rank(&every[i]) < mdadm_rank(&every[best])))
			best = i;
	*sb = every[best];
	return 0;
}

static struct scan_array *array_of(struct md_scan *s, const struct md_super *sb, struct diag *d)
{
	struct scan_array *a;
	int i;

	for (i = 0; i < s->narrays; i++)
		if (super_mdadm_same_array(scan_array_super(s, &s->arrays[i]), sb))
			return &s->arrays[i];
	a = realloc(s->arrays, (size_t)(s->narrays + 1) * sizeof(*a));
	if (!a) {
		diag_fail(d, "out of memory");
		return NULL;
	}
	s->arrays = a;
	a = &s->arrays[s->narrays++];
	*a = (struct scan_array){ 0 };
	return a;
}

int scan_add(struct md_scan *s, const char *path, const struct md_super *sb, struct diag *d)
{
	struct scan_member *m = realloc(s->members, (size_t)(s->nmembers + 1) * sizeof(*m));
	struct scan_array *a;
	int *list;

	if (!m)
		return diag_fail(d, "out of memory");
	s->members = m;
	m = &s->members[s->nmembers];
	m->sb = *sb;
	if (!(m->path = strdup(path)))
		return diag_fail(d, "out of memory");
	s->nmembers++;
	if (!(a = array_of(s, sb, d)))
		return -1;
	if (!(list = realloc(a->members, (size_t)(a->nmembers + 1) * sizeof(*list))))
		return diag_fail(d, "out of memory");
	a->members = list;
	a->members[a->nmembers++] = s->nmembers - 1;
	a->spares += !super_mdadm_in_sync(sb);
	return 0;
}

void scan_free(struct md_scan *s)
{
	int i;

	for (i = 0; i < s->nmembers; i++)
		free(s->members[i].path);
	for (i = 0; i < s->narrays; i++)
		free(s->arrays[i].members);
	free(s->members);
	free(s->arrays);
	*s = (struct md_scan){ 0 };
}
