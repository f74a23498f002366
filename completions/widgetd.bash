# bash completion for widgetd                                -*- shell-script -*-

_widgetd()
{
    local cur prev words cword
    _init_completion || return

    case $prev in
        --config) _filedir conf; return ;;
        --state-directory) _filedir -d; return ;;
        --socket) _filedir; return ;;
    esac
    COMPREPLY=($(compgen -W "--config --state-directory --socket --start-over --check-config --help --version" -- "$cur"))
} &&
    complete -F _widgetd widgetd

# ex: filetype=sh
