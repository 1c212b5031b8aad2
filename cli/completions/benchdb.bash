# bash completion for benchdb: commands, their options, --format values, and storage classes,
# hosts and security flavors read from the warehouse the command line names (--db, else
# $BENCHDB_DB, else ./benchdb.sqlite). Installed as share/bash-completion/completions/benchdb.

# The distinct values of one label column of the warehouse (nothing when there is none).
_benchdb_labels()
{
    local db=$1 column=$2
    [ -r "$db" ] || return 0
    benchdb --db "$db" query --format csv \
        "SELECT DISTINCT $column FROM result WHERE $column IS NOT NULL ORDER BY 1" \
        2>/dev/null | tail -n +2
}

_benchdb()
{
    local cur prev words cword
    _init_completion || return

    local commands="baseline check export formats help import merge query relabel reparse report rm run runs trend vacuum"
    local db=${BENCHDB_DB:-benchdb.sqlite} cmd="" by=storage_class i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        --db) db=${words[i + 1]} ;;
        --db=*) db=${words[i]#--db=} ;;
        --by) [ "$cmd" = report ] && by=${words[i + 1]//-/_} ;;
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
    --storage-class) COMPREPLY=($(compgen -W "$(_benchdb_labels "$db" storage_class)" -- "$cur")); return ;;
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
    run) opts="--host --storage-class --mount --sec --tag --help" ;;
    runs) opts="--history --since --until --format --help" ;;
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
    merge | formats) opts="--help" ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    elif [ "$cmd" = report ] && [[ " ${words[*]:1:cword-1} " == *" --compare "* ]]; then
        case $by in
        storage_class | host | sec) COMPREPLY=($(compgen -W "$(_benchdb_labels "$db" "$by")" -- "$cur")) ;;
        esac
    elif [ "$cmd" = import ] || [ "$cmd" = merge ]; then
        _filedir
    fi
} &&
    complete -F _benchdb benchdb
