#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# What CI runs is what the documentation says it runs: the test steps of
# .ci/run (its "step" lines but the installs and the build) are exactly
# the commands of Documentation/testing.rst's "What CI runs" list, and
# README.md names that section. Checked against the real tree, then
# against copies with a step taken out of the list and one made up in
# it, which it must reject.
#
# Usage: tests/spec/check-ci.sh      (ends with "N passed, M failed")

set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
DOC=$TOP/Documentation/testing.rst
CI=$TOP/.ci/run

# The test steps of .ci/run, a line each (its shell quoting dropped).
ci_steps() {
	sed -n 's/^step //p' "$CI" | grep -v -E '^(make deps|scripts/install-deps\.sh|make guest)( |$)' |
		sed "s/^sh -c '\\(.*\\)'\$/\\1/" | tr -d '"' | sort
}

# The commands of the section's list: ``COMMAND`` opening each item.
doc_steps() {
	awk '/^What CI runs$/ { in_sec = 1; n = 0; next }
	     in_sec && ++n > 1 && /^[=-]+$/ { exit }
	     in_sec && /^\* ``/ { print }' "$1" |
		sed 's/^\* ``\([^`]*\)``.*/\1/' | tr -d '"' | sort
}

compare() {
	set_diff <(ci_steps) <(doc_steps "$1") "run by CI, not listed" \
		"listed, not run by CI" ';'
}

n=$(ci_steps | wc -l)
if [ "$n" -ge 3 ] && out=$(compare "$DOC"); then
	ok "testing.rst lists the $n test steps of .ci/run, and no other"
else
	ko "testing.rst and .ci/run disagree on what CI runs ($n steps): $out"
fi
if grep -q 'What CI runs' "$TOP/README.md"; then
	ok "README.md points at \"What CI runs\""
else
	ko "README.md does not point at testing.rst's \"What CI runs\""
fi

# A listed step taken out must be missed; a made-up one must be refused.
first=$(doc_steps "$DOC" | head -n 1)
grep -v -F "* \`\`$first\`\`" "$DOC" >"$TMP/missing.rst"
if ! out=$(compare "$TMP/missing.rst") && grep -q "not listed" <<<"$out"; then
	ok "rejects a list without '$first'"
else
	ko "a list without '$first' passed: $out"
fi
sed 's/^What CI runs$/&\n\n* ``make check-everything`` - made up/' "$DOC" >"$TMP/extra.rst"
if ! out=$(compare "$TMP/extra.rst") && grep -q "check-everything" <<<"$out"; then
	ok "rejects a list with a step CI does not run"
else
	ko "a made-up step passed: $out"
fi

finish
