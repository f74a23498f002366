#compdef widgetctl

__widgetctl_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__widgetctl_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __widgetctl_complete "${completions[@]:0:-1}"
    fi
}

__widgetctl_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_widgetctl() {
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
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'status:Show lock state, class keys, attempts and settings.'
            'unlock:Unlock the device with its passcode.'
            'lock:Lock the device.'
            'passcode:Set, change or remove the device passcode.'
            'settings:Show or change what locked surfaces may show.'
            'wipe:Erase every timeline for good (destroys the keys).'
            'monitor:Follow lock state and settings changes as they happen.'
            'put:Replace a widget'\''s timeline with the one in a file.'
            'append:Add the entries in a file to a widget'\''s timeline.'
            'timeline:Show a stored timeline as its provider sees it.'
            'delete:Delete a widget'\''s timeline.'
            'providers:List providers: class, owner, file, why disabled.'
            'actions:Receive the actions hosts perform on your widgets.'
            'list:List stored widgets: family, class, generation.'
            'get:Preview a widget as a host would show it.'
            'watch:Follow a widget'\''s presentation as it changes.'
            'reload:Ask providers to reload their timelines.'
            'act:Perform a widget'\''s action as a host would.'
            'introspect:Show the interfaces widgetd serves, or one'\''s definition.'
            'call:Call any Varlink method with JSON parameters.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        status|unlock|lock|passcode|settings|wipe|monitor|put|append|timeline|delete|providers|actions|list|get|watch|reload|act|introspect|call|help)
            "_widgetctl_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_widgetctl_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_unlock() {
    local -i ret=1
    local -ar arg_specs=(
        '--passcode-stdin[Read passcodes from standard input, one per line.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_lock() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_passcode() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'set:Set a passcode when none is set.'
            'change:Change the passcode.'
            'remove:Remove the passcode (no data protection).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        set|change|remove)
            "_widgetctl_passcode_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_widgetctl_passcode_set() {
    local -i ret=1
    local -ar arg_specs=(
        '--passcode-stdin[Read passcodes from standard input, one per line.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_passcode_change() {
    local -i ret=1
    local -ar arg_specs=(
        '--passcode-stdin[Read passcodes from standard input, one per line.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_passcode_remove() {
    local -i ret=1
    local -ar arg_specs=(
        '--passcode-stdin[Read passcodes from standard input, one per line.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_settings() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Show the settings (the default).'
            'set:Change one setting.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show|set)
            "_widgetctl_settings_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_widgetctl_settings_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_settings_set() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'lock-screen-widgets:Which Lock Screen widgets show their content while locked (the others: redacted).'
            'hide-sensitive-complications:Which widgets are redacted on the always-on display.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        lock-screen-widgets|hide-sensitive-complications)
            "_widgetctl_settings_set_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_widgetctl_settings_set_lock-screen-widgets() {
    local -i ret=1
    local -ar _value=('on' 'off' 'selected')
    local -ar arg_specs=(
        ':value:{__widgetctl_complete "${_value[@]}"}'
        '*:widgets:{__widgetctl_custom_complete ---completion settings set lock-screen-widgets -- positional@1 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_settings_set_hide-sensitive-complications() {
    local -i ret=1
    local -ar _value=('off' 'all' 'selected')
    local -ar arg_specs=(
        ':value:{__widgetctl_complete "${_value[@]}"}'
        '*:widgets:{__widgetctl_custom_complete ---completion settings set hide-sensitive-complications -- positional@1 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_wipe() {
    local -i ret=1
    local -ar arg_specs=(
        '--yes[Do not ask for confirmation.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_monitor() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_put() {
    local -i ret=1
    local -ar ___family=('systemSmall' 'systemMedium' 'systemLarge' 'systemExtraLarge' 'accessoryCircular' 'accessoryRectangular' 'accessoryInline')
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion put -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        ':second:_files -g '\''*.json'\'''
        '--family[Widget family (e.g. systemSmall); overrides the file.]:family:{__widgetctl_complete "${___family[@]}"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_append() {
    local -i ret=1
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion append -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        ':file:_files -g '\''*.json'\'''
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_timeline() {
    local -i ret=1
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion timeline -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_delete() {
    local -i ret=1
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion delete -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_providers() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_actions() {
    local -i ret=1
    local -ar arg_specs=(
        '--provider[Only this provider'\''s widgets (default\: every provider you may write for).]:id:{__widgetctl_custom_complete ---completion actions -- --provider "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--provider[Only this provider'\''s widgets.]:provider:'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_get() {
    local -i ret=1
    local -ar ___surface=('home-screen' 'lock-screen' 'always-on' 'remote')
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion get -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--surface[The surface a host shows it on.]:surface:{__widgetctl_complete "${___surface[@]}"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_watch() {
    local -i ret=1
    local -ar ___surface=('home-screen' 'lock-screen' 'always-on' 'remote')
    local -ar ___format=('text' 'json' 'waybar')
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion watch -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--surface[The surface a host shows it on.]:surface:{__widgetctl_complete "${___surface[@]}"}'
        '--format[How each presentation is printed\: text (a preview), json (one presentation per line) or waybar (Waybar'\''s custom-module JSON).]:format:{__widgetctl_complete "${___format[@]}"}'
        '*--field[With --format waybar\: a field the label shows, in the order given (repeat it; default\: every field, in the provider'\''s order).]:name:'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_reload() {
    local -i ret=1
    local -ar arg_specs=(
        ':provider\[/kind\]:{__widgetctl_custom_complete ---completion reload -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_act() {
    local -i ret=1
    local -ar ___surface=('home-screen' 'lock-screen' 'always-on' 'remote')
    local -ar arg_specs=(
        ':widget:{__widgetctl_custom_complete ---completion act -- positional@0 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        ':action:{__widgetctl_custom_complete ---completion act -- positional@1 "${current_word_index}" "$(__widgetctl_cursor_index_in_current_word)"}'
        '--surface[The surface a host shows it on.]:surface:{__widgetctl_complete "${___surface[@]}"}'
        '--wait[Wait for a held action'\''s final outcome (delivered by an unlock, or expired).]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_introspect() {
    local -i ret=1
    local -ar _interface=('org.varlink.service' 'io.widgetd.Device' 'io.widgetd.Provider' 'io.widgetd.Host')
    local -ar arg_specs=(
        ':interface:{__widgetctl_complete "${_interface[@]}"}'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_call() {
    local -i ret=1
    local -ar arg_specs=(
        ':method:'
        ':parameters:'
        '--more[Ask for a stream of replies (Varlink'\''s "more"), as Watch and Monitor send.]'
        '--socket[The daemon'\''s socket (default\: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).]:path:_files'
        '--json[Print results and errors as JSON, for scripts.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_widgetctl_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _widgetctl ]]; then
    _widgetctl "${@}"
else
    compdef _widgetctl widgetctl
fi
