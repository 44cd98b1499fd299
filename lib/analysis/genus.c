/*
 * genus.c - genus suggestion from mean tubercle diameter and spacing (µm)
 * with the published ranges of conf/reference.conf (reference.h): one
 * classifier, the original's extraction-time rule (see metrics.h); its
 * unnormalised /statistics variant is deliberately absent.
 */
#include "analysis/metrics.h"
#include "analysis/reference.h"

void fs_classify_genus(double d, double s, const char **genus, const char **confidence)
{
	fs_reference_classify(fs_reference_builtin(), d, s, genus, confidence);
}
