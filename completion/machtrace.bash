# bash completion for machtrace: subcommands, options, provider names
# (from machtrace -l, which never fetches a kernel here: MACHTRACE_NOFETCH).
_machtrace_providers()
{
	MACHTRACE_NOFETCH=1 machtrace -l 2>/dev/null </dev/null |
		awk 'NR > 1 { print $2 }' | sort -u
}

_machtrace()
{
	local cur prev words cword
	_init_completion || return
	local opts="-32 -64 -b -c -C -D -e -f -F -G -h -H -i -I -l -L -m -n -o -p
		-P -q -s -S -U -v -V -w -x -X -Z --kernel --module --workload
		--timeout --mach --disk --snapshot --vm --version"
	local subs="boot vm kernel record export report baseline top health msgdecode"

	case $prev in
	-P)
		COMPREPLY=($(compgen -W "$(_machtrace_providers)" -- "$cur"))
		return ;;
	-n|-f|-m)
		COMPREPLY=($(compgen -W "$(_machtrace_providers | sed 's/$/:::/')" -- "$cur"))
		compopt -o nospace
		return ;;
	-s|-o|--kernel|--disk|-I|-L)
		_filedir
		return ;;
	-X)
		COMPREPLY=($(compgen -W "a c s t" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "chrome folded flamegraph speedscope" -- "$cur"))
		return ;;
	--events)
		COMPREPLY=($(compgen -W "sched ipc vm proc trap" -- "$cur"))
		return ;;
	esac
	if [ "$cword" -ge 2 ]; then
		case ${words[1]} in
		vm)
			[ "$cword" -eq 2 ] &&
				COMPREPLY=($(compgen -W "start list stop console" -- "$cur"))
			return ;;
		kernel)
			[ "$cword" -eq 2 ] &&
				COMPREPLY=($(compgen -W "fetch list" -- "$cur"))
			[ "$cword" -gt 2 ] && [[ $cur == -* ]] &&
				COMPREPLY=($(compgen -W "--suite --version --kernels --cache" -- "$cur"))
			return ;;
		baseline)
			[ "$cword" -eq 2 ] &&
				COMPREPLY=($(compgen -W "save compare" -- "$cur"))
			return ;;
		export|report)
			[ "$cword" -eq 2 ] && _filedir -d
			[ "$cword" -gt 2 ] && [[ $cur == -* ]] &&
				COMPREPLY=($(compgen -W "--format -o -h" -- "$cur"))
			return ;;
		esac
	fi
	if [ "$cword" -eq 1 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -F _machtrace machtrace
