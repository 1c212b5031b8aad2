# bash completion for benchdb: commands, their options, --format values, and the labels of the
# warehouse the command line names (--db, else $BENCHDB_DB, else ./benchdb.sqlite) as
# `benchdb labels --format csv` lists them: storage classes, hosts, --compare values of the
# --by key, and --where KEY=VALUE pairs. Installed as share/bash-completion/completions/benchdb.

# Labels come from imported files, sidecars and merged warehouses, so they are data, never
# code: they are read NUL-separated (`benchdb labels -z`, bytes exact: no CSV to undo) and
# offered through _benchdb_offer, never through `compgen -W`, which expands its word list
# (a label `$(cmd)` would run on TAB).

# Sets the array named $1 to the labels of warehouse $2: the values of key $3 (a --by key),
# or with no key every KEY=VALUE a --where filter takes (a mount flag: KEY=).
_benchdb_labels()
{
    local -n _benchdb_into=$1
    local db=$2 key=${3-}
    _benchdb_into=()
    [ -r "$db" ] || return 0
    mapfile -d '' _benchdb_into < <(benchdb --db "$db" labels -z ${key:+"$key"} 2>/dev/null </dev/null)
}

# The KEY=VALUE pairs a --where filter of command cmd can take, into the array named $1.
# relabel, rm, reparse and baseline select with relabel's keys: storage_class, and no mount
# options.
_benchdb_where()
{
    local -n _benchdb_pairs=$1
    local cmd=$3 pair
    _benchdb_labels "$1" "$2"
    case $cmd in
    relabel | rm | reparse | baseline)
        local -a kept=()
        for pair in "${_benchdb_pairs[@]}"; do
            case $pair in
            mount:*) ;;
            storage-class=*) kept+=("storage_class=${pair#storage-class=}") ;;
            *) kept+=("$pair") ;;
            esac
        done
        _benchdb_pairs=("${kept[@]}")
        ;;
    esac
}

# COMPREPLY: the words after $1 that start with the word being completed ($cur, as typed or
# as a shell-quoted prefix), each quoted for the command line (printf %q) so that it reaches
# benchdb byte for byte. Readline replaces only the text after the last '=' or ':' of the
# word (both are in COMP_WORDBREAKS), so that part of cur is taken off each reply.
_benchdb_offer()
{
    local word quoted head=
    COMPREPLY=()
    for word in "$@"; do
        printf -v quoted '%q' "$word"
        [[ $word == "$cur"* || $quoted == "$cur"* ]] && COMPREPLY+=("$quoted")
    done
    [[ $cur == *[=:]* ]] && head=${cur%"${cur##*[=:]}"}
    [ -n "$head" ] && COMPREPLY=("${COMPREPLY[@]#"$head"}")
    return 0
}

_benchdb()
{
    local cur prev words cword
    _init_completion -n =: || return

    # the commands and each command's options are benchdb's own tables (--completion-helper,
    # as git's --git-completion-helper), never a second list to keep in step
    local commands
    commands=$(benchdb --completion-helper 2>/dev/null)
    local db=${BENCHDB_DB:-benchdb.sqlite} cmd="" by=storage-class i
    local -a labels
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        --db) db=${words[i + 1]} ;;
        --db=*) db=${words[i]#--db=} ;;
        --by) by=${words[i + 1]} ;;
        -*) ;;
        *) [ -z "$cmd" ] && [ "${words[i - 1]}" != --db ] && cmd=${words[i]} ;;
        esac
    done

    case $prev in
    --db | --rules | -o | --output | --template)
        _filedir
        return
        ;;
    --host | --storage-class)
        _benchdb_labels labels "$db" "${prev#--}"
        _benchdb_offer "${labels[@]}"
        return
        ;;
    --where)
        _benchdb_where labels "$db" "$cmd"
        _benchdb_offer "${labels[@]}"
        return
        ;;
    --sec) COMPREPLY=($(compgen -W "sys krb5 krb5i krb5p none" -- "$cur")); return ;;
    --by) COMPREPLY=($(compgen -W "storage-class host sec mount: tag:" -- "$cur")); return ;;
    --format | --table)
        case $cmd in
        import) COMPREPLY=($(compgen -W "$(benchdb formats 2>/dev/null | cut -d' ' -f1)" -- "$cur")) ;;
        ?*) COMPREPLY=($(compgen -W "$(benchdb "$cmd" --completion-helper="$prev" 2>/dev/null)" -- "$cur")) ;;
        esac
        return
        ;;
    esac

    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$commands --db --version --help" -- "$cur"))
        return
    fi
    case $cmd in
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    version) return ;;
    esac
    local opts
    opts=$(benchdb "$cmd" --completion-helper 2>/dev/null)
    [ "$cmd" = baseline ] && opts="save list rm $opts"
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ $cmd == @(report|check) ]] && [[ " ${words[*]:1:cword-1} " == *" --compare "* ]]; then
        _benchdb_labels labels "$db" "$by"
        _benchdb_offer "${labels[@]}"
    elif [ "$cmd" = labels ]; then
        COMPREPLY=($(compgen -W "storage-class host sec mount: tag: rw bs job tool" -- "$cur"))
        __ltrim_colon_completions "$cur"
    elif [ "$cmd" = import ] || [ "$cmd" = merge ]; then
        _filedir
    fi
} &&
    complete -F _benchdb benchdb
