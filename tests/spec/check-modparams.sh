#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Every module parameter of kmod/ (module_param*()) is described in
# Documentation/design.rst's "Module parameters" section, and that section
# describes no parameter the module does not have. Checked against the
# real tree, then against copies with a parameter taken out of the
# section and one made up in it, which it must reject.
#
# Usage: tests/spec/check-modparams.sh      (ends with "N passed, M failed")

set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
DOC=$TOP/Documentation/design.rst

# The parameters the module has, a line each, sorted.
code_params() {
	grep -ho 'module_param[a-z_]*([a-z_0-9]*' "$TOP"/kmod/*.c |
		sed 's/.*(//' | sort -u
}

# The parameters the section of DOC describes: each definition-list term
# (a line that starts with ``), which may name several.
doc_params() {
	# The section ends at the next title's underline (its own is the
	# line after it).
	awk '/^Module parameters$/ { in_sec = 1; n = 0; next }
	     in_sec && ++n > 1 && /^=+$/ { exit }
	     in_sec && /^``/ { print }' "$1" |
		grep -o '``[a-z_0-9]*``' | tr -d '`' | sort -u
}

# compare DOC: prints what differs; true if nothing does.
compare() {
	set_diff <(code_params) <(doc_params "$1") "not described" \
		"described, not in the module" ' '
}

n=$(code_params | wc -l)
if [ "$n" -ge 10 ] && out=$(compare "$DOC"); then
	ok "design.rst describes the module's $n parameters, and no other"
else
	ko "design.rst and kmod/ disagree on the module parameters ($n found): $out"
fi

# Take the first parameter's term out of the section: it must be missed.
first=$(code_params | head -n1)
sed "s/^\`\`$first\`\`\$/\`\`renamed_$first\`\`/" "$DOC" >"$TMP/missing.rst"
if ! out=$(compare "$TMP/missing.rst") && grep -q "not described: .*$first" <<<"$out" &&
   grep -q "renamed_$first" <<<"$out"; then
	ok "rejects a section without $first"
else
	ko "a section without $first passed: $out"
fi

finish
