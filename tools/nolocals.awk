# A noweave filter, run after -autodefs c: drop the "definitions" that autodefs finds in chunks
# that are pieces of a function body (a local `float m = ...` is not a global identifier).
# A chunk is such a piece when it is used indented, or used inside another such piece.
# Two more are dropped everywhere: the keyword _Atomic, which autodefs takes for the name that
# `static _Atomic(T *) x` defines, and main, which every program defines (the identifier index
# would list a dozen definitions of it).
{ line[NR] = $0 }
/^@begin code/ { in_code = 1; at_start = 1; blank = 1; next }
/^@end code/   { in_code = 0; next }
in_code && /^@defn / { chunk = substr($0, 7); next }
in_code && /^@nl/    { at_start = 1; blank = 1; next }
in_code && /^@text / {
    text = substr($0, 7)
    if (text !~ /^[ \t]*$/) blank = 0
    at_start = 0
    indented = (blank && text != "")
    next
}
in_code && /^@use / {
    used = substr($0, 6)
    parent[used] = parent[used] SUBSEP chunk
    if (!at_start && blank && indented) local[used] = 1
    blank = 0
    next
}
END {
    do {
        changed = 0
        for (name in parent) {
            if (name in local) continue
            n = split(parent[name], parents, SUBSEP)
            for (k = 2; k <= n; k++)
                if (parents[k] in local) { local[name] = 1; changed = 1; break }
        }
    } while (changed)
    for (i = 1; i <= NR; i++) {
        if (line[i] ~ /^@begin code/) code = 1
        if (line[i] ~ /^@end code/) code = 0
        if (code && line[i] ~ /^@defn /) chunk = substr(line[i], 7)
        if (code && line[i] ~ /^@index defn / && (chunk in local)) continue
        if (line[i] ~ /^@index (local)?defn (_Atomic|main)$/) continue
        print line[i]
    }
}
