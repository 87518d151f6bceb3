# tools/completion/prism.bash - bash completion for prismc, prismd, prism-perf
# and prism-fw (installed once per command name under
# share/bash-completion/completions, or sourced from ~/.bashrc).
#
# Owns: completing subcommands, options and option values.  The subcommands
# and options are read from the tools' own --help at completion time, so the
# completion cannot fall behind the tools; what this file knows is only which
# values an option takes (profiles, devices, entry points, files).
# Must not: depend on bash-completion's helpers (it works with plain bash).

# _prism_help CMD...: the option names in `CMD... --help`.
_prism_help() {
	"$@" --help 2>/dev/null |
		grep -oE '(^|[][[:space:],|(])--?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^[][[:space:],|(]+//' | sort -u
}

# _prism_takes_value CMD... -- OPT: true when --help shows OPT followed by a
# value ("--entry NAME", "-o FILE", "--arg NAME=VALUE", "--firmware relaxed|strict").
_prism_takes_value() {
	local opt=${*: -1}
	set -- "${@:1:$#-2}"
	"$@" --help 2>/dev/null |
		grep -qE "(^|[][[:space:],|(])${opt}(, --[A-Za-z0-9-]+)?[ =]([A-Z<]|[a-z0-9]+[|])"
}

# _prism_long CMD... -- OPT: the long spelling of OPT ("-c" is --config for
# prismd, --chain for prism-perf), from "-c, --config FILE" in --help.
_prism_long() {
	local opt=${*: -1} long
	set -- "${@:1:$#-2}"
	if [[ $opt == --* ]]; then
		echo "$opt"
		return
	fi
	long=$("$@" --help 2>/dev/null | grep -oE -- "(^|[[:space:]])${opt}, --[A-Za-z0-9-]+" | head -1)
	echo "${long##*, }"
}

# _prism_files EXT...: files with one of these extensions, and directories.
_prism_files() {
	local cur=$1 f ext
	shift
	compopt -o filenames 2>/dev/null
	while IFS= read -r f; do
		if [ -d "$f" ]; then
			COMPREPLY+=("$f")
			continue
		fi
		[ $# -eq 0 ] && { COMPREPLY+=("$f"); continue; }
		for ext in "$@"; do
			[[ $f == *."$ext" ]] && COMPREPLY+=("$f")
		done
	done < <(compgen -f -- "$cur")
}

# _prism_entries WORD...: the offload names of the first .prism file among WORDs.
_prism_entries() {
	local w
	for w in "$@"; do
		if [[ $w == *.prism && -r $w ]]; then
			sed -nE 's/^[[:space:]]*offload[[:space:]]+([A-Za-z_][A-Za-z0-9_]*).*/\1/p' "$w"
			return
		fi
	done
}

# _prism_value PREV CUR WORD...: complete the value of option PREV.
_prism_value() {
	local prev=$1 cur=$2
	shift 2
	case $prev in
	--firmware | --profile)
		mapfile -t COMPREPLY < <(compgen -W "relaxed strict" -- "$cur") ;;
	--cost)
		mapfile -t COMPREPLY < <(compgen -W "cx5" -- "$cur")
		_prism_files "$cur" yaml ;;
	--entry)
		mapfile -t COMPREPLY < <(compgen -W "$(_prism_entries "$@")" -- "$cur") ;;
	--device)
		mapfile -t COMPREPLY < <(compgen -W "sim $(ls /sys/class/infiniband 2>/dev/null)" -- "$cur") ;;
	--workload)
		mapfile -t COMPREPLY < <(compgen -W "read write send get" -- "$cur") ;;
	--config)
		_prism_files "$cur" yaml ;;
	--chain)
		_prism_files "$cur" chain ;;
	*)
		_prism_files "$cur" ;;
	esac
}

# _prism_complete CMD...: the common part: CMD... is the tool (and
# subcommand) whose --help lists the options.
_prism_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [[ $prev == -* ]] && _prism_takes_value "$@" -- "$prev"; then
		_prism_value "$(_prism_long "$@" -- "$prev")" "$cur" "${COMP_WORDS[@]}"
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_prism_help "$@")" -- "$cur")
		return 1
	fi
	return 1
}

_prismc() {
	COMPREPLY=()
	local cur=${COMP_WORDS[COMP_CWORD]} tool=${COMP_WORDS[0]} cmd i
	# the subcommand: the first word after the options of prismc itself
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} != -* ]] && { cmd=${COMP_WORDS[i]}; break; }
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$("$tool" --help 2>/dev/null |
				sed -nE '/^commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p') help" -- "$cur")
		fi
		return
	fi
	if [ "$cmd" = help ]; then
		[ "$i" -eq $((COMP_CWORD - 1)) ] && mapfile -t COMPREPLY < <(compgen -W "$("$tool" --help 2>/dev/null |
			sed -nE '/^commands:/,/^$/s/^  ([a-z][a-z-]*) .*/\1/p')" -- "$cur")
		return
	fi
	_prism_complete "$tool" "$cmd" || _prism_files "$cur" prism chain
}

_prismd() {
	COMPREPLY=()
	_prism_complete "${COMP_WORDS[0]}" || true
}

_prism_perf() {
	COMPREPLY=()
	_prism_complete "${COMP_WORDS[0]}" || true
}

_prism_fw() {
	COMPREPLY=()
	local cur=${COMP_WORDS[COMP_CWORD]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "list status relax restore --help --version" -- "$cur")
	elif [ "$COMP_CWORD" -eq 2 ] && [[ $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(ls /sys/class/infiniband 2>/dev/null)" -- "$cur")
	elif [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "--yes" -- "$cur")
	else
		_prism_files "$cur"
	fi
}

complete -F _prismc prismc
complete -F _prismd prismd
complete -F _prism_perf prism-perf
complete -F _prism_fw prism-fw
