function __widgetctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __widgetctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __widgetctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __widgetctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __widgetctl_parse_tokens -S
    set -l unparsed_tokens (__widgetctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'widgetctl'
        __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'status'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        case 'unlock'
            __widgetctl_parse_subcommand -r 1 'passcode-stdin' 'socket=' 'json' 'version' 'h/help'
        case 'lock'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        case 'passcode'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'set'
                __widgetctl_parse_subcommand -r 1 'passcode-stdin' 'socket=' 'json' 'version' 'h/help'
            case 'change'
                __widgetctl_parse_subcommand -r 1 'passcode-stdin' 'socket=' 'json' 'version' 'h/help'
            case 'remove'
                __widgetctl_parse_subcommand -r 1 'passcode-stdin' 'socket=' 'json' 'version' 'h/help'
            end
        case 'settings'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'show'
                __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
            case 'set'
                __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
                switch $unparsed_tokens[1]
                case 'lock-screen-widgets'
                    __widgetctl_parse_subcommand -r 2 'socket=' 'json' 'version' 'h/help'
                case 'hide-sensitive-complications'
                    __widgetctl_parse_subcommand -r 2 'socket=' 'json' 'version' 'h/help'
                end
            end
        case 'wipe'
            __widgetctl_parse_subcommand 0 'yes' 'socket=' 'json' 'version' 'h/help'
        case 'monitor'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        case 'put'
            __widgetctl_parse_subcommand 2 'family=' 'socket=' 'json' 'version' 'h/help'
        case 'append'
            __widgetctl_parse_subcommand 2 'socket=' 'json' 'version' 'h/help'
        case 'timeline'
            __widgetctl_parse_subcommand 1 'socket=' 'json' 'version' 'h/help'
        case 'delete'
            __widgetctl_parse_subcommand 1 'socket=' 'json' 'version' 'h/help'
        case 'providers'
            __widgetctl_parse_subcommand 0 'socket=' 'json' 'version' 'h/help'
        case 'actions'
            __widgetctl_parse_subcommand 0 'provider=' 'socket=' 'json' 'version' 'h/help'
        case 'list'
            __widgetctl_parse_subcommand 0 'provider=' 'socket=' 'json' 'version' 'h/help'
        case 'get'
            __widgetctl_parse_subcommand 1 'surface=' 'socket=' 'json' 'version' 'h/help'
        case 'watch'
            __widgetctl_parse_subcommand 1 'surface=' 'format=' 'field=+' 'socket=' 'json' 'version' 'h/help'
        case 'reload'
            __widgetctl_parse_subcommand 1 'socket=' 'json' 'version' 'h/help'
        case 'act'
            __widgetctl_parse_subcommand 2 'surface=' 'wait' 'socket=' 'json' 'version' 'h/help'
        case 'introspect'
            __widgetctl_parse_subcommand 1 'socket=' 'json' 'version' 'h/help'
        case 'call'
            __widgetctl_parse_subcommand 2 'more' 'socket=' 'json' 'version' 'h/help'
        case 'help'
            __widgetctl_parse_subcommand -r 1 'version'
        end
    end
end

function __widgetctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __widgetctl_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __widgetctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __widgetctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__widgetctl_tokens -p)
    if test -z "$(__widgetctl_tokens -t)"
        set -l index (count (__widgetctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'widgetctl' -f
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'status' -d 'Show lock state, class keys, attempts and settings.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'unlock' -d 'Unlock the device with its passcode.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'lock' -d 'Lock the device.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'passcode' -d 'Set, change or remove the device passcode.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'settings' -d 'Show or change what locked surfaces may show.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'wipe' -d 'Erase every timeline for good (destroys the keys).'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'monitor' -d 'Follow lock state and settings changes as they happen.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'put' -d 'Replace a widget\'s timeline with the one in a file.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'append' -d 'Add the entries in a file to a widget\'s timeline.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'timeline' -d 'Show a stored timeline as its provider sees it.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'delete' -d 'Delete a widget\'s timeline.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'providers' -d 'List providers: class, owner, file, why disabled.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'actions' -d 'Receive the actions hosts perform on your widgets.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'list' -d 'List stored widgets: family, class, generation.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'get' -d 'Preview a widget as a host would show it.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'watch' -d 'Follow a widget\'s presentation as it changes.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'reload' -d 'Ask providers to reload their timelines.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'act' -d 'Perform a widget\'s action as a host would.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'introspect' -d 'Show the interfaces widgetd serves, or one\'s definition.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'call' -d 'Call any Varlink method with JSON parameters.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl status" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl status" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl status" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl unlock" passcode-stdin' -l 'passcode-stdin' -d 'Read passcodes from standard input, one per line.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl unlock" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl unlock" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl unlock" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl lock" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl lock" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl lock" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl lock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl passcode" -eq 1' -fa 'set' -d 'Set a passcode when none is set.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl passcode" -eq 1' -fa 'change' -d 'Change the passcode.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl passcode" -eq 1' -fa 'remove' -d 'Remove the passcode (no data protection).'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode set" passcode-stdin' -l 'passcode-stdin' -d 'Read passcodes from standard input, one per line.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode set" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode set" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode set" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode change" passcode-stdin' -l 'passcode-stdin' -d 'Read passcodes from standard input, one per line.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode change" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode change" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode change" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode change" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode remove" passcode-stdin' -l 'passcode-stdin' -d 'Read passcodes from standard input, one per line.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode remove" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode remove" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode remove" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl passcode remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings" -eq 1' -fa 'show' -d 'Show the settings (the default).'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings" -eq 1' -fa 'set' -d 'Change one setting.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings show" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings show" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings show" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set" -eq 1' -fa 'lock-screen-widgets' -d 'Which Lock Screen widgets show their content while locked (the others: redacted).'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set" -eq 1' -fa 'hide-sensitive-complications' -d 'Which widgets are redacted on the always-on display.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set lock-screen-widgets" -eq 1' -fka 'on off selected'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set lock-screen-widgets" -ge 2' -fka '(__widgetctl_custom_completion ---completion settings set lock-screen-widgets -- positional@1 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set lock-screen-widgets" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set lock-screen-widgets" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set lock-screen-widgets" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set lock-screen-widgets" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set hide-sensitive-complications" -eq 1' -fka 'off all selected'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl settings set hide-sensitive-complications" -ge 2' -fka '(__widgetctl_custom_completion ---completion settings set hide-sensitive-complications -- positional@1 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set hide-sensitive-complications" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set hide-sensitive-complications" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set hide-sensitive-complications" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl settings set hide-sensitive-complications" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl wipe" yes' -l 'yes' -d 'Do not ask for confirmation.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl wipe" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl wipe" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl wipe" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl wipe" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl monitor" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl monitor" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl monitor" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl monitor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl put" -eq 1' -fka '(__widgetctl_custom_completion ---completion put -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl put" -eq 2' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl put" family' -l 'family' -d 'Widget family (e.g. systemSmall); overrides the file.' -rfka 'systemSmall systemMedium systemLarge systemExtraLarge accessoryCircular accessoryRectangular accessoryInline'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl put" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl put" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl put" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl put" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl append" -eq 1' -fka '(__widgetctl_custom_completion ---completion append -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl append" -eq 2' -fa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'json\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl append" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl append" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl append" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl append" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl timeline" -eq 1' -fka '(__widgetctl_custom_completion ---completion timeline -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl timeline" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl timeline" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl timeline" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl timeline" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl delete" -eq 1' -fka '(__widgetctl_custom_completion ---completion delete -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl delete" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl delete" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl delete" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl providers" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl providers" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl providers" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl providers" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl actions" provider' -l 'provider' -d 'Only this provider\'s widgets (default: every provider you may write for).' -rfka '(__widgetctl_custom_completion ---completion actions -- --provider (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl actions" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl actions" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl actions" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl actions" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl list" provider' -l 'provider' -d 'Only this provider\'s widgets.' -rfka ''
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl list" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl list" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl list" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl get" -eq 1' -fka '(__widgetctl_custom_completion ---completion get -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl get" surface' -l 'surface' -d 'The surface a host shows it on.' -rfka 'home-screen lock-screen always-on remote'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl get" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl get" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl get" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl watch" -eq 1' -fka '(__widgetctl_custom_completion ---completion watch -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" surface' -l 'surface' -d 'The surface a host shows it on.' -rfka 'home-screen lock-screen always-on remote'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" format' -l 'format' -d 'How each presentation is printed: text (a preview), json (one presentation per line) or waybar (Waybar\'s custom-module JSON).' -rfka 'text json waybar'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch"' -l 'field' -d 'With --format waybar: a field the label shows, in the order given (repeat it; default: every field, in the provider\'s order).' -rfka ''
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl reload" -eq 1' -fka '(__widgetctl_custom_completion ---completion reload -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl reload" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl reload" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl reload" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl reload" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl act" -eq 1' -fka '(__widgetctl_custom_completion ---completion act -- positional@0 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl act" -eq 2' -fka '(__widgetctl_custom_completion ---completion act -- positional@1 (count (__widgetctl_tokens -pc)) (__widgetctl_tokens -tC))'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" surface' -l 'surface' -d 'The surface a host shows it on.' -rfka 'home-screen lock-screen always-on remote'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" wait' -l 'wait' -d 'Wait for a held action\'s final outcome (delivered by an unlock, or expired).'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl act" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_positional "widgetctl introspect" -eq 1' -fka 'org.varlink.service io.widgetd.Device io.widgetd.Provider io.widgetd.Host'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl introspect" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl introspect" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl introspect" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl introspect" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl call" more' -l 'more' -d 'Ask for a stream of replies (Varlink\'s "more"), as Watch and Monitor send.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl call" socket' -l 'socket' -d 'The daemon\'s socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl call" json' -l 'json' -d 'Print results and errors as JSON, for scripts.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl call" version' -l 'version' -d 'Show the version.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl call" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetctl' -n '__widgetctl_should_offer_completions_for_flags_or_options "widgetctl help" version' -l 'version' -d 'Show the version.'
