/*
 * test_rule.h - the measurement rule a unit test binary runs under.
 *
 * FS_TEST_MEASUREMENT_RULE=outline|dome forces the rule for every unit test
 * binary, as it does for the integration and browser suites (README
 * "Testing under either rule"; `make test-dome`): before main() runs,
 * test_rule.c selects it (fs_measurement_set_rule) and puts it into
 * FISHSCALE_MEASUREMENT_RULE, so a test that reads the site's configuration
 * (fs_app_config) gets the same rule. Unset or empty: the build's default
 * (FS_MEASUREMENT_RULE_DEFAULT). A test that sets a rule itself still wins:
 * it runs after this. An unknown name stops the binary with a message
 * (exit status 2), so a typo cannot silently run the default rule.
 *
 * Nothing here allocates; the names returned are static.
 */
#ifndef FS_TEST_RULE_H
#define FS_TEST_RULE_H

#include "analysis/measurement.h"

/* The rule the binary started with: FS_TEST_MEASUREMENT_RULE's, else the
 * build's default. Tests whose expected numbers belong to one rule read it
 * to choose the expectation derived for that rule. */
fs_measurement_rule test_rule_forced(void);

#endif
