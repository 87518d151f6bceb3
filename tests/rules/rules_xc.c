#include "tests/rules/rules.h"
static const struct rule rules[] = {RULE("0", "x", NULL)};
const struct rule_table rules_xc = {rules, 0};
