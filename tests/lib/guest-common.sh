# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Helpers shared by the krdma guest tests (sourced after tests/vm/lib.sh).

# json_check NAME "COMMAND" "PYTHON-EXPR over d": runs COMMAND (JSON
# output), records NAME ok if the expression is true.
json_check() {
	_jc_name=$1 _jc_cmd=$2 _jc_expr=$3
	_jc_out=$(sh -c "$_jc_cmd" 2>&1)
	if printf '%s' "$_jc_out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if ($_jc_expr) else 1)" 2>/dev/null; then
		result "$_jc_name" ok
	else
		echo "--- $_jc_name: '$_jc_expr' is false for: $_jc_cmd"
		printf '%s\n' "$_jc_out"
		result "$_jc_name" fail
	fi
}

# expect_fail_msg NAME REGEX CMD...: CMD must fail, and what it printed
# must match REGEX (grep -E).
expect_fail_msg() {
	_ef_name=$1 _ef_re=$2
	shift 2
	_ef_out=$("$@" 2>&1)
	_ef_rc=$?
	if [ $_ef_rc -ne 0 ] && printf '%s' "$_ef_out" | grep -Eq -- "$_ef_re"; then
		result "$_ef_name" ok "rc=$_ef_rc"
		printf '%s: %s\n' "$_ef_name" "$(printf '%s' "$_ef_out" | tail -n 1)"
	else
		echo "--- $_ef_name: expected failure matching /$_ef_re/ (rc=$_ef_rc):"
		printf '%s\n' "$_ef_out"
		result "$_ef_name" fail "rc=$_ef_rc"
	fi
}

# run_test NAME SESSION OP SIZE COUNT DEPTH: a test that must succeed with
# every iteration done and its data checked.
run_test() {
	_rt_name=$1
	_rt_out=$(krdmactl -j test run session "$2" op "$3" size "$4" count "$5" depth "$6" 2>&1)
	_rt_rc=$?
	if [ $_rt_rc -eq 0 ] && printf '%s' "$_rt_out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
ok = d['status'] == 0 and d['iters'] == $5 and d['validated'] == $5
sys.exit(0 if ok else 1)" 2>/dev/null; then
		result "test.$_rt_name" ok
	else
		echo "--- test.$_rt_name failed (rc=$_rt_rc):"
		printf '%s\n' "$_rt_out"
		result "test.$_rt_name" fail "rc=$_rt_rc"
	fi
}
