function __widgetd_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __widgetd_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __widgetd_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __widgetd_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __widgetd_parse_tokens -S
    set -l unparsed_tokens (__widgetd_tokens -pc)
    switch $unparsed_tokens[1]
    case 'widgetd'
        __widgetd_parse_subcommand 0 'config=' 'state-directory=' 'socket=' 'check-config' 'start-over' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __widgetd_parse_subcommand -r 1 'version'
        end
    end
end

function __widgetd_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __widgetd_parse_subcommand -S -a positional_count
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

function __widgetd_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __widgetd_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__widgetd_tokens -p)
    if test -z "$(__widgetd_tokens -t)"
        set -l index (count (__widgetd_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'widgetd' -f
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" config' -l 'config' -d 'Configuration file (default: /etc/widgetd/widgetd.conf as root, else $XDG_CONFIG_HOME/widgetd/widgetd.conf).' -rfa '(for p in (string match -e -- \'*/\' (commandline -t);or printf \n)*.\'conf\';printf %s\n $p;end;__fish_complete_directories (commandline -t) \'\')'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" state-directory' -l 'state-directory' -d 'State directory (default: /var/lib/widgetd as root, else $XDG_STATE_HOME/widgetd).' -rfa '(__widgetd_complete_directories)'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" socket' -l 'socket' -d 'Socket to listen on when not socket-activated (default: /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).' -rF
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" check-config' -l 'check-config' -d 'Check the configuration, its drop-ins and providers.d/, print every problem, and exit: 1 if there is an error, 0 otherwise (warnings are printed too). Starts nothing.'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" start-over' -l 'start-over' -d 'If the keybag is missing while timelines remain, erase them and the journal (no key can read them) and make a new keybag, instead of refusing to start. If the catalog alone is missing, rebuild it from the timeline files at the first unlock with the passcode (placeholders only until then).'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" version' -l 'version' -d 'Show the version.'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_positional "widgetd" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'widgetd' -n '__widgetd_should_offer_completions_for_flags_or_options "widgetd help" version' -l 'version' -d 'Show the version.'
