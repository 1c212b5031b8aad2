# bash completion for benchdb: commands, their options, --format values, and the labels of the
# warehouse the command line names (--db, else $BENCHDB_DB, else ./benchdb.sqlite) as
# `benchdb labels --format csv` lists them: storage classes, hosts, --compare values of the
# --by key, and --where KEY=VALUE pairs. Installed as share/bash-completion/completions/benchdb.

# The values of one label key (a --by key) in the warehouse (nothing when there is none).
_benchdb_labels()
{
    local db=$1 key=$2
    [ -r "$db" ] || return 0
    benchdb --db "$db" labels --format csv "$key" 2>/dev/null | tail -n +2 | cut -d, -f2
}

# Every KEY=VALUE a --where filter of command cmd can take (a mount flag: KEY=). relabel, rm,
# reparse and baseline select with relabel's keys: storage_class, and no mount options.
_benchdb_where()
{
    local db=$1 cmd=$2
    [ -r "$db" ] || return 0
    local pairs
    pairs=$(benchdb --db "$db" labels --format csv 2>/dev/null | tail -n +2 | cut -d, -f1,2 | tr , =)
    case $cmd in
    relabel | rm | reparse | baseline) sed -e 's/^storage-class=/storage_class=/' -e '/^mount:/d' <<<"$pairs" ;;
    *) printf '%s\n' "$pairs" ;;
    esac
}

_benchdb()
{
    local cur prev words cword
    _init_completion -n : || return

    local commands="baseline check export formats help import labels merge push query relabel reparse report rm run runs trend vacuum"
    local db=${BENCHDB_DB:-benchdb.sqlite} cmd="" by=storage-class i
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
    --host) COMPREPLY=($(compgen -W "$(_benchdb_labels "$db" host)" -- "$cur")); return ;;
    --storage-class) COMPREPLY=($(compgen -W "$(_benchdb_labels "$db" storage-class)" -- "$cur")); return ;;
    --where)
        COMPREPLY=($(compgen -W "$(_benchdb_where "$db" "$cmd")" -- "$cur"))
        __ltrim_colon_completions "$cur"
        return
        ;;
    --sec) COMPREPLY=($(compgen -W "sys krb5 krb5i krb5p none" -- "$cur")); return ;;
    --by) COMPREPLY=($(compgen -W "storage-class host sec mount: tag:" -- "$cur")); return ;;
    --table)
        case $cmd in
        trend) COMPREPLY=($(compgen -W "change_points series points" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "comparison unmatched runs results" -- "$cur")) ;;
        esac
        return
        ;;
    --format)
        case $cmd in
        import) COMPREPLY=($(compgen -W "$(benchdb formats 2>/dev/null | cut -d' ' -f1)" -- "$cur")) ;;
        export) COMPREPLY=($(compgen -W "ndjson csv" -- "$cur")) ;;
        report) COMPREPLY=($(compgen -W "md html xlsx csv json" -- "$cur")) ;;
        trend) COMPREPLY=($(compgen -W "md html csv json" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "table csv json md" -- "$cur")) ;;
        esac
        return
        ;;
    esac

    if [ -z "$cmd" ]; then
        COMPREPLY=($(compgen -W "$commands --db --version --help" -- "$cur"))
        return
    fi
    local opts
    case $cmd in
    import) opts="--host --storage-class --mount --sec --tag --format --dry-run --verbose --jobs --help" ;;
    run) opts="--host --storage-class --mount --sec --tag --repeat --help" ;;
    runs) opts="--history --since --until --format --help" ;;
    labels) opts="--where --since --until --format --help" ;;
    export) opts="--format --since --until --output --help" ;;
    report) opts="--compare --by --where --since --until --rules --output --format --table --template --all --help" ;;
    trend) opts="--where --metric --since --until --p-value --min-magnitude --format --table --output --help" ;;
    query) opts="--format --timeout --help" ;;
    relabel) opts="--where --set --dry-run --help" ;;
    reparse) opts="--where --help" ;;
    check) opts="--compare --by --where --threshold --help" ;;
    baseline) opts="save list rm --where --format --help" ;;
    rm) opts="--where --dry-run --help" ;;
    vacuum) opts="--help" ;;
    merge | formats | push) opts="--help" ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [[ $cmd == @(report|check) ]] && [[ " ${words[*]:1:cword-1} " == *" --compare "* ]]; then
        COMPREPLY=($(compgen -W "$(_benchdb_labels "$db" "$by")" -- "$cur"))
    elif [ "$cmd" = labels ]; then
        COMPREPLY=($(compgen -W "storage-class host sec mount: tag: rw bs job tool" -- "$cur"))
        __ltrim_colon_completions "$cur"
    elif [ "$cmd" = import ] || [ "$cmd" = merge ]; then
        _filedir
    fi
} &&
    complete -F _benchdb benchdb
