# bash completion for widgetctl(1).
# Install as /usr/share/bash-completion/completions/widgetctl.

# File names, through bash-completion when it is installed.
_widgetctl_files()
{
    if declare -F _filedir >/dev/null; then
        _filedir "$@"
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}

# Widget ids from the daemon, quietly: nothing when it is not reachable.
_widgetctl_widgets()
{
    local socket=()
    [[ -n $1 ]] && socket=(--socket "$1")
    widgetctl "${socket[@]}" list 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_widgetctl()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n = || return
    else
        # Without the bash-completion package: the raw words.
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${words[cword]}
        prev=${words[cword - 1]}
    fi

    local commands="status unlock lock passcode settings wipe monitor put append timeline delete list get watch reload help"
    local surfaces="homeScreen lockScreen alwaysOn remote"

    # Find the command and the --socket given before it.
    local i command="" command_index=0 socket=""
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --socket) socket=${words[i + 1]}; ((i++)) ;;
            --socket=*) socket=${words[i]#--socket=} ;;
            -*) ;;
            *) command=${words[i]}; command_index=$i; break ;;
        esac
    done

    if [[ -z $command ]]; then
        case $prev in
            --socket) _widgetctl_files; return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--socket --json --help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    # Positional words after the command, not counting options.
    local positional=() word
    for ((i = command_index + 1; i < cword; i++)); do
        word=${words[i]}
        case $word in
            --surface | --family | --provider) ((i++)) ;;
            -*) ;;
            *) positional+=("$word") ;;
        esac
    done

    case $prev in
        --surface) COMPREPLY=($(compgen -W "$surfaces" -- "$cur")); return ;;
        --family) COMPREPLY=($(compgen -W "systemSmall systemMedium systemLarge systemExtraLarge accessoryCircular accessoryRectangular accessoryInline" -- "$cur")); return ;;
    esac

    local options="--help"
    case $command in
        status | lock | monitor | timeline | delete | reload | settings) options+=" --json" ;;
        list) options+=" --provider --json" ;;
        unlock | passcode) options+=" --passcode-stdin --json" ;;
        wipe) options+=" --yes --json" ;;
        put) options+=" --family --json" ;;
        append) options+=" --json" ;;
        get | watch) options+=" --surface --json" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi

    local n=${#positional[@]}
    case $command in
        help) ((n == 0)) && COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
        passcode) ((n == 0)) && COMPREPLY=($(compgen -W "set change remove" -- "$cur")) ;;
        settings)
            case $n in
                0) COMPREPLY=($(compgen -W "set" -- "$cur")) ;;
                1) COMPREPLY=($(compgen -W "lock-screen-widgets hide-sensitive-complications" -- "$cur")) ;;
                2)
                    if [[ ${positional[1]} == lock-screen-widgets ]]; then
                        COMPREPLY=($(compgen -W "on off" -- "$cur"))
                    else
                        COMPREPLY=($(compgen -W "off all selected" -- "$cur"))
                    fi
                    ;;
                *)
                    [[ ${positional[2]} == selected ]] &&
                        COMPREPLY=($(compgen -W "$(_widgetctl_widgets "$socket")" -- "$cur"))
                    ;;
            esac
            ;;
        get | watch | timeline | delete)
            ((n == 0)) && COMPREPLY=($(compgen -W "$(_widgetctl_widgets "$socket")" -- "$cur"))
            ;;
        put | append)
            case $n in
                0) COMPREPLY=($(compgen -W "$(_widgetctl_widgets "$socket")" -- "$cur")) ;;
                1) _widgetctl_files json; COMPREPLY+=($(compgen -W "-" -- "$cur")) ;;
            esac
            ;;
        reload)
            ((n == 0)) && COMPREPLY=($(compgen -W "$(_widgetctl_widgets "$socket" | sed 's/#.*//' | sort -u)" -- "$cur"))
            ;;
    esac
} &&
    complete -F _widgetctl widgetctl
