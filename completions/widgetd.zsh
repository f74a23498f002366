#compdef widgetd

__widgetd_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__widgetd_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __widgetd_complete "${completions[@]:0:-1}"
    fi
}

__widgetd_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_widgetd() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--config[Configuration file (default\: /etc/widgetd/widgetd.conf as root, else $XDG_CONFIG_HOME/widgetd/widgetd.conf).]:file:_files -g '\''*.conf'\'''
        '--state-directory[State directory (default\: /var/lib/widgetd as root, else $XDG_STATE_HOME/widgetd).]:directory:_files -/'
        '--socket[Socket to listen on when not socket-activated (default\: /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--check-config[Check the configuration, its drop-ins and providers.d/, print every problem, and exit\: 1 if there is an error, 0 otherwise (warnings are printed too). Starts nothing.]'
        '--start-over[If the keybag is missing while timelines remain, erase them and the journal (no key can read them) and make a new keybag, instead of refusing to start. If the catalog alone is missing, rebuild it from the timeline files at the first unlock with the passcode (placeholders only until then).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        help)
            "_widgetd_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_widgetd_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _widgetd ]]; then
    _widgetd "${@}"
else
    compdef _widgetd widgetd
fi
