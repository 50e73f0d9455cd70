# Shared by the tools/*.sh scripts: what `scibench list` says, parsed once.
# Source it; SB names the binary (default build/scibench).
SB=${SB:-build/scibench}
[ -x "$SB" ] || { echo "$0: $SB is not an executable (run make first)" >&2; exit 2; }
SB_LIST=$("$SB" list) || exit 2

# Kernel names, one a line.
sb_kernels() {
    printf '%s\n' "$SB_LIST" | awk '/^backends on this machine/{exit} /^  [A-Za-z0-9_]+: /{sub(":", "", $1); print $1}'
}

# sb_kernel_field KERNEL default|min|max|CI : a size from the kernel's "size" line.
sb_kernel_field() {
    printf '%s\n' "$SB_LIST" | awk -v k="$1" -v f="$2" '
        /^backends on this machine/{exit}
        /^  [A-Za-z0-9_]+: /{cur=$1; sub(":", "", cur)}
        cur==k && /^    size/{n=split($0, a, /[:,] */); for (i=1;i<=n;i++){split(a[i], w, " "); if (w[1]==f) print w[2]}}'
}

# sb_kernel_has KERNEL BACKEND : the kernel implements the backend.
sb_kernel_has() {
    printf '%s\n' "$SB_LIST" | awk -v k="$1" -v b="$2" '
        /^backends on this machine/{exit}
        /^  [A-Za-z0-9_]+: /{cur=$1; sub(":", "", cur)}
        cur==k && /^    backends/{for (i=2;i<=NF;i++) if ($i==b) found=1}
        END{exit !found}'
}

# sb_backend_here BACKEND : this machine can run it.
sb_backend_here() {
    printf '%s\n' "$SB_LIST" | awk -v b="$1" '/^backends on this machine/{on=1; next} on && $1==b && $2=="available"{f=1} END{exit !f}'
}

# sb_tag ARGS... : ".key-value_key-value" from the --param options, "" without any.
sb_tag() {
    local tag="" a next=0
    for a in "$@"; do
        if [ $next = 1 ]; then tag+="_$a"; next=0; continue; fi
        case $a in --param) next=1 ;; --param=*) tag+="_${a#--param=}" ;; esac
    done
    tag=${tag#_}
    [ -n "$tag" ] && printf '.%s' "$(printf '%s' "$tag" | tr '=' '-' | tr -c 'A-Za-z0-9._-' '-')"
}
