#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Keeps Documentation/krdmactl.8 and the tool from drifting apart, both
# ways. The page must render without warnings; every object, command,
# keyword, option and op name that "krdmactl help" and "krdmactl OBJECT
# help" list (made from the tool's tables) must appear in it; and every
# object, option, "krdmactl OBJECT COMMAND" and keyword of a synopsis the
# page shows must be one the tool knows (its tables, asked through
# "krdmactl __complete").
#
# Usage: tests/spec/check-manpage.sh [ MANPAGE ]
#   KRDMACTL=path  the tool to ask (default tools/krdmactl, built if missing)
# Ends with "N passed, M failed".

set -u

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
PAGE=${1:-$TOP/Documentation/krdmactl.8}
KRDMACTL=${KRDMACTL:-$TOP/tools/krdmactl}

# Hundreds of words are checked: passes are listed with VERBOSE=1 only.
ok() { pass=$((pass + 1)); [ -n "${VERBOSE:-}" ] && echo "ok   $*"; return 0; }

if [ ! -f "$PAGE" ]; then
	ko "no man page at $PAGE"
	finish
fi
if ! command -v groff >/dev/null; then
	ko "groff is not installed (apt-get install groff-base)"
	finish
fi
if [ ! -x "$KRDMACTL" ] && [ "$KRDMACTL" = "$TOP/tools/krdmactl" ]; then
	make -s -C "$TOP/tools" >"$TMP/make.log" 2>&1 || cat "$TMP/make.log"
fi
if [ ! -x "$KRDMACTL" ]; then
	ko "no krdmactl at $KRDMACTL (make -C tools)"
	finish
fi

# ---- the page renders cleanly ----

if groff -man -ww -z "$PAGE" 2>"$TMP/groff.err" && [ ! -s "$TMP/groff.err" ]; then
	ok "groff -man -ww: no warnings"
else
	ko "groff -man -ww warns:"; sed 's/^/     /' "$TMP/groff.err"
fi
if command -v man >/dev/null; then
	if LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l -Tutf8 "$PAGE" >/dev/null 2>"$TMP/man.err" &&
	   [ ! -s "$TMP/man.err" ]; then
		ok "man -l -Tutf8: no warnings"
	else
		ko "man -l -Tutf8 warns:"; sed 's/^/     /' "$TMP/man.err"
	fi
fi
if command -v mandoc >/dev/null; then
	if mandoc -Tlint -Wwarning "$PAGE" >"$TMP/mandoc.err" 2>&1; then
		ok "mandoc -Tlint: clean"
	else
		ko "mandoc -Tlint:"; sed 's/^/     /' "$TMP/mandoc.err"
	fi
fi

# The page as plain text: no hyphenation, wide lines, one space between
# words, so that "session connect" is found wherever it was broken.
groff -man -Tascii -P-c -rHY=0 -rLL=250n "$PAGE" 2>/dev/null |
	sed 's/.\x08//g' | tr -s ' \t\n' ' ' >"$TMP/page.txt"
if [ ! -s "$TMP/page.txt" ]; then
	ko "the page renders to nothing"
	finish
fi

# in_page DESCRIPTION EXTENDED-REGEX
in_page() {
	if grep -Eq -- "$2" "$TMP/page.txt"; then
		ok "$1"
	else
		ko "$1: not in $(basename "$PAGE")"
	fi
}

# Regex-quote a literal word.
q() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# ---- what the tool's help lists ----

"$KRDMACTL" help >"$TMP/help" 2>&1 || true
objects=$(sed -n 's/.*OBJECT := {\(.*\)}.*/\1/p' "$TMP/help" | tr '|' ' ')
if [ -z "$objects" ]; then
	ko "cannot find 'OBJECT := { ... }' in krdmactl help"
	finish
fi

# Options: "  -j, --json     JSON output".
while read -r short long; do
	in_page "option $short" "(^|[^[:alnum:]-])$(q "$short")([^[:alnum:]-]|$)"
	in_page "option $long" "(^|[^[:alnum:]-])$(q "$long")([^[:alnum:]-]|$)"
done < <(sed -n 's/^ *\(-[[:alnum:]]\), \(--[[:alnum:]-]*\) .*/\1 \2/p' "$TMP/help")

for obj in $objects; do
	in_page "object $obj" "krdmactl( -[[:alnum:]]+)* $obj( |$)"
	"$KRDMACTL" "$obj" help >"$TMP/help.$obj" 2>&1 || true
	# Usage lines, with their continuation lines joined.
	awk -v obj="$obj" '
		/^(Usage:)? *krdmactl / { if (cur != "") print cur; sub(/^(Usage:)? */, ""); cur = $0; next }
		/^ +[[{]/ && cur != "" { sub(/^ +/, " "); cur = cur $0; next }
		{ if (cur != "") print cur; cur = "" }
		END { if (cur != "") print cur }' "$TMP/help.$obj" >"$TMP/usage.$obj"
	if [ ! -s "$TMP/usage.$obj" ]; then
		ko "krdmactl $obj help: no usage lines"
		continue
	fi
	cmds=""
	while read -r _ o cmd args; do
		[ "$o" = "$obj" ] || { ko "krdmactl $obj help: usage line for '$o'"; continue; }
		case $cmd in
		help) in_page "$obj help" "krdmactl (help|[^ ]+ help)|OBJECT help"; continue ;;
		"" | [![:lower:]]*)
			# An object without commands (monitor, ping): its arguments.
			args="$cmd $args"
			cmd=""
			;;
		*)
			cmds="$cmds $cmd"
			in_page "command $obj $cmd" "krdmactl( -[[:alnum:]]+)* $obj $cmd( |$)"
			;;
		esac
		# Keywords: the lower-case words of the arguments.
		for kw in $(grep -oE '(^|[ [{|])[a-z][a-z_]*' <<<"$args" | tr -d ' [{|' | sort -u); do
			in_page "keyword '$kw' of $obj${cmd:+ $cmd}" "(^|[^[:alnum:]_])$(q "$kw")([^[:alnum:]_]|$)"
		done
	done <"$TMP/usage.$obj"
	# The command list ("  add      listen for ...") must match the usage.
	listed=$(sed -n 's/^  \([a-z][a-z_]*\)  .*/\1/p' "$TMP/help.$obj" | tr '\n' ' ')
	for c in $listed; do
		case " $cmds " in
		*" $c "*) ok "$obj: listed command $c has a usage line" ;;
		*) ko "krdmactl $obj help lists '$c' without a usage line" ;;
		esac
	done
	# Value lists such as "OP := { ping | send | ... }" (may span lines).
	while read -r meta; do
		in_page "$obj: metavariable $meta" "(^|[^[:alnum:]])$meta([^[:alnum:]]|$)"
	done < <(grep -oE '^[A-Z]+ *:=' "$TMP/help.$obj" | sed 's/ *:=//' | sort -u)
	while read -r val; do
		in_page "$obj: value $val" "(^|[^[:alnum:]_])$(q "$val")([^[:alnum:]_]|$)"
	done < <(tr '\n' ' ' <"$TMP/help.$obj" | grep -oE '[A-Z]+ *:= *\{[^}]*\}' |
		 grep -vE '^(ADDR|OBJECT)' | sed 's/.*{\(.*\)}/\1/' | tr '|' '\n' |
		 sed 's/^ *//; s/ *$//' | grep -E '^[a-z][a-z_]*$')
	echo "$cmds" >"$TMP/cmds.$obj"
done

# ---- no command in the page that the tool does not know ----

for obj in $objects; do
	known=$(cat "$TMP/cmds.$obj" 2>/dev/null)
	[ -n "$known" ] || continue
	# shellcheck disable=SC2013 # one command word per match
	for c in $(grep -oE "krdmactl( -[[:alnum:]]+)* $obj [a-z_]+" "$TMP/page.txt" |
		   awk '{ print $NF }' | sort -u); do
		case " $known help " in
		*" $c "*) ok "page: $obj $c is a command" ;;
		*) ko "page shows 'krdmactl $obj $c', which krdmactl $obj help does not list" ;;
		esac
	done
done

# ---- the other way: what the page shows, the tool has ----

# The objects of the SYNOPSIS's "OBJECT := { ... }", and its options.
page_objects=$(grep -oE 'OBJECT := \{[^}]*\}' "$TMP/page.txt" | head -n 1 |
	       sed 's/.*{\(.*\)}/\1/' | tr -d '|')
for o in $page_objects; do
	case " $objects " in
	*" $o "*) ok "page: object $o is one" ;;
	*) ko "page lists object '$o', which krdmactl help does not" ;;
	esac
done
for o in $objects; do
	case " $page_objects " in
	*" $o "*) ok "page: OBJECT lists $o" ;;
	*) ko "the page's OBJECT := { ... } lacks '$o'" ;;
	esac
done
help_opts=" $(sed -n 's/^ *\(-[[:alnum:]]\), \(--[[:alnum:]-]*\) .*/\1 \2/p' "$TMP/help" | tr '\n' ' ') "
# shellcheck disable=SC2013 # one option per match
for o in $(sed -n '/^\.SH OPTIONS/,/^\.SH /s/^\.BR \(\\-[[:alnum:]]\) ", " \(\\-\\-[[:alnum:]-]*\).*/\1 \2/p' "$PAGE" |
	   sed 's/\\-/-/g'); do
	case $help_opts in
	*" $o "*) ok "page: option $o is one" ;;
	*) ko "page shows option '$o', which krdmactl help does not list" ;;
	esac
done

# The keywords of each synopsis in COMMANDS: ".BR \"krdmactl OBJ CMD\" ..."
# and its ".RB \"        [ ...\"" continuation lines; the bold words are
# keywords, the italic (\fI...\fP) values. "OBJ CMD KW..." per synopsis.
sed -n '/^\.SH COMMANDS/,/^\.SH ARGUMENTS/p' "$PAGE" | awk '
	function flush() { if (cur != "") print cur; cur = "" }
	/^\.B[RI]? "?krdmactl [a-z]/ {
		flush()
		line = $0
		sub(/^\.B[RI]? "?krdmactl /, "", line)
		split(line, w, /[" ]/)
		obj = w[1]; cmd = (w[2] ~ /^[a-z][a-z_]*$/) ? w[2] : ""
		if (obj == "help") next
		sub(/^[a-z]+( [a-z_]+)?"?/, "", line)
		if (cmd == "") sub(/^[a-z]+"?/, "", line)
		cur = obj " " (cmd == "" ? "-" : cmd) " " line
		next
	}
	/^\.(PD 0|TP)$/ && cur != "" { next }
	/^\.RB "  +[[{]/ && cur != "" { sub(/^\.RB/, ""); cur = cur " " $0; next }
	{ flush() }
	END { flush() }' |
	sed 's/\\fI[^\\]*\\fP//g; s/\\f[BRP]//g; s/\\-/-/g; s/"/ /g' >"$TMP/page.synopses"
if [ ! -s "$TMP/page.synopses" ]; then
	ko "no synopsis found in the page's COMMANDS"
fi
mkdir -p "$TMP/empty"
while read -r obj cmd rest; do
	[ "$cmd" = - ] && cmd=""
	# What the tool takes there: its keywords (no module: no live names;
	# an empty directory: no file names).
	# shellcheck disable=SC2086 # cmd is one word or none
	known=" $(cd "$TMP/empty" && "$KRDMACTL" __complete "$obj" $cmd "" | tr '\n' ' ') "
	for kw in $(grep -oE '(^|[ [{|])[a-z][a-z_]*' <<<"$rest" | tr -d ' [{|' | sort -u); do
		case $known in
		*" $kw "*) ok "page: '$kw' is a keyword of $obj${cmd:+ $cmd}" ;;
		*) ko "page's synopsis of '$obj${cmd:+ $cmd}' shows '$kw', which the tool does not take there" ;;
		esac
	done
done <"$TMP/page.synopses"

# ---- every module parameter, with its default, as the module has it ----

# "NAME DEFAULT" for each module_param_named(NAME, VAR, ...), DEFAULT being
# the number VAR is initialised with (0 for a VAR defined without one,
# static or not), or the word of a string (charp) one; enum-like ones
# (module_param_cb) are listed by name only.
params=$(
	cat "$TOP"/kmod/*.c |
		sed -nE 's/^(static )?[a-z ]*(int|long|bool) (krdma_[a-z_]+) = ([0-9]+|true|false);.*/init \3 \4/p
			 s/^(static )?char \*(krdma_[a-z_]+) = "([a-z0-9_]+)";.*/init \2 \3/p
			 s/^(static )?[a-z ]*(int|long|bool) (krdma_[a-z_]+);.*/init \3 0/p
			 s/.*module_param_named\(([a-z_]+), (krdma_[a-z_]+),.*/param \1 \2/p
			 s/.*module_param_cb\(([a-z_]+),.*/param \1 -/p' |
		while read -r kind a b; do
			if [ "$kind" = init ]; then
				case $b in true) b=1 ;; false) b=0 ;; esac
				eval "init_$a=\$b"
			else
				v=-
				[ "$b" = - ] || eval "v=\${init_$b:-?}"
				echo "$a $v"
			fi
		done)
if [ -z "$params" ]; then
	ko "no module parameters found in kmod/*.c"
fi
while read -r name def; do
	[ -n "$name" ] || continue
	case $def in
	-) in_page "module parameter $name" "(^| )$name \\(default" ;;
	\?) ko "module parameter $name: its default is not a literal this check reads" ;;
	*) in_page "module parameter $name (default $def)" "(^| )$name \\(default ${def}[,)]" ;;
	esac
done <<<"$params"

finish
