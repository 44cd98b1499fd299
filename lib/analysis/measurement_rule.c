/*
 * measurement_rule.c - the selected measurement rule and its versions (see
 * measurement.h).
 */
#include "analysis/measurement.h"

#include <stdio.h>
#include <string.h>

/* Process-wide, set at start-up (measurement.h). */
static fs_measurement_rule selected = FS_MEASUREMENT_RULE_DEFAULT;

void fs_measurement_set_rule(fs_measurement_rule rule)
{
	if (fs_measurement_rule_name(rule))
		selected = rule;
}

fs_measurement_rule fs_measurement_get_rule(void)
{
	return selected;
}

int fs_measurement_version(void)
{
	return (int)selected;
}

int fs_measurement_rule_parse(const char *name, fs_measurement_rule *out)
{
	if (!name || !*name)
		*out = FS_MEASUREMENT_RULE_DEFAULT;
	else if (!strcmp(name, "outline"))
		*out = FS_RULE_OUTLINE;
	else if (!strcmp(name, "dome"))
		*out = FS_RULE_DOME;
	else
		return -1;
	return 0;
}

const char *fs_measurement_rule_name(fs_measurement_rule rule)
{
	switch (rule) {
	case FS_RULE_OUTLINE:
		return "outline";
	case FS_RULE_DOME:
		return "dome";
	}
	return NULL;
}

fs_measurement_rule fs_measurement_rule_of_version(int version)
{
	return fs_measurement_rule_name((fs_measurement_rule)version) ? (fs_measurement_rule)version
								      : (fs_measurement_rule)0;
}

const char *fs_measurement_version_text(int version, char *out, size_t outlen)
{
	switch (fs_measurement_rule_of_version(version)) {
	case FS_RULE_OUTLINE:
		return "the outline rule (version 1)";
	case FS_RULE_DOME:
		return "the dome rule (version 2)";
	}
	if (version == 0)
		return "before versioning (version 0)";
	snprintf(out, outlen, "an unknown rule (version %d)", version);
	return out;
}
