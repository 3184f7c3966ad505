/* report: what the probe found, as text for people, as JSON for scripts,
 * and as the command lines that give the array back to md. */
#ifndef STRIPE_PROBE_REPORT_H
#define STRIPE_PROBE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "probe/search.h"
#include "util/json.h"

/* Where the mdadm line creates the array. */
#define PROBE_MD_DEVICE "/dev/md/restored"

/* "found", "ambiguous", "none": --json's verdict. */
const char *probe_verdict_name(enum probe_verdict v);

/* The mdadm --create --run --assume-clean line that writes c's superblocks
 * over its members (m, indexed as c's order) in role order, "missing"
 * for an absent role.  Returns the length it needed, as snprintf does. */
int probe_mdadm_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len);

/* The same as stripe-create --assume-clean. */
int probe_create_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len);

/* "--geometry SPEC MEMBER...": the members c uses in the order given, and
 * the SPEC's order renumbered to that list. */
int probe_geometry_line(const struct probe_candidate *c, const struct probe_member *m, char *buf, size_t len);

/* How much of the text report to print: the lines to restore and the
 * verdict; with the leading candidates, doubts and notes; with every
 * candidate. */
enum probe_detail { PROBE_BRIEF, PROBE_USUAL, PROBE_ALL };

/* The text report: the candidates ranked with confidence and evidence,
 * what could not be decided, the superblocks weighed, and for each array
 * found the lines that restore it. */
void probe_report_text(FILE *f, const struct probe_outcome *o, enum probe_detail detail);

/* The same as members of an open JSON document. */
void probe_report_json(struct json *j, const struct probe_outcome *o);

#endif
