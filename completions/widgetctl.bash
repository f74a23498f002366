# bash completion for widgetctl                              -*- shell-script -*-

_widgetctl()
{
    local cur prev words cword
    _init_completion || return

    local commands="status unlock lock passcode settings wipe monitor put append timeline delete list get watch reload help"
    local surfaces="homeScreen lockScreen alwaysOn remote"

    # The command is the first word that is neither a global option nor its value.
    local i command=""
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --socket) ((i++)) ;;
            -*) ;;
            *) command=${words[i]}; break ;;
        esac
    done

    case $prev in
        --socket) _filedir; return ;;
        --surface) COMPREPLY=($(compgen -W "$surfaces" -- "$cur")); return ;;
        --family) COMPREPLY=($(compgen -W "systemSmall systemMedium systemLarge systemExtraLarge accessoryCircular accessoryRectangular accessoryInline" -- "$cur")); return ;;
    esac

    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--socket --json --version --help" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    case $command in
        help) COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
        passcode)
            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--passcode-stdin --json --help" -- "$cur"))
            else COMPREPLY=($(compgen -W "set change remove" -- "$cur")); fi ;;
        unlock) COMPREPLY=($(compgen -W "--passcode-stdin --json --help" -- "$cur")) ;;
        settings)
            case $prev in
                settings) COMPREPLY=($(compgen -W "set --json --help" -- "$cur")) ;;
                set) COMPREPLY=($(compgen -W "lock-screen-widgets hide-sensitive-complications" -- "$cur")) ;;
                lock-screen-widgets) COMPREPLY=($(compgen -W "on off" -- "$cur")) ;;
                hide-sensitive-complications) COMPREPLY=($(compgen -W "off all selected" -- "$cur")) ;;
            esac ;;
        wipe) COMPREPLY=($(compgen -W "--yes --json --help" -- "$cur")) ;;
        put)
            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--family --json --help" -- "$cur"))
            else _filedir json; fi ;;
        append)
            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "--json --help" -- "$cur"))
            else _filedir json; fi ;;
        get|watch) COMPREPLY=($(compgen -W "--surface --json --help" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
    esac
} &&
    complete -F _widgetctl widgetctl

# ex: filetype=sh
