# A noweave filter, run after -autodefs c: drop the "definitions" that autodefs finds in chunks
# that are pieces of a function body (a local `float m = ...` is not a global identifier).
# A chunk is such a piece when it is used indented, or used inside another such piece.
# Two more are dropped everywhere: the keyword _Atomic, which autodefs takes for the name that
# `static _Atomic(T *) x` defines, and main, which every program defines (the identifier index
# would list a dozen definitions of it).
# Code written over the kit's element type (chapter 9) spells a public name KIT(name), which the
# preprocessor makes name64 or name32; autodefs takes KIT for the function such a line defines,
# and the stem inside for a type.  In a code chunk that holds KIT(, those two are dropped where
# autodefs put them, after a line of code; the chunk's @ %def line, which markup puts at the
# chunk's end, names the real spellings and stays.  So is the type real, which autodefs finds
# in such code as a definition; kit-real.h's @ %def line defines it.
{ line[NR] = $0 }
/^@begin code/ { in_code = 1; at_start = 1; blank = 1; block++; next }
/^@end code/   { in_code = 0; next }
in_code && /^@defn / { chunk = substr($0, 7); next }
in_code && /^@nl/    { at_start = 1; blank = 1; next }
in_code && /^@text / {
    text = substr($0, 7)
    rest = text
    while (match(rest, /KIT\([A-Za-z_][A-Za-z0-9_]*\)/)) {
        stem[block, substr(rest, RSTART + 4, RLENGTH - 5)] = 1
        stem[block, "KIT"] = 1
        rest = substr(rest, RSTART + RLENGTH)
    }
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
        if (line[i] ~ /^@begin code/) { code = 1; at_block++ }
        if (line[i] ~ /^@end code/) code = 0
        if (code && line[i] ~ /^@defn /) chunk = substr(line[i], 7)
        if (code && line[i] ~ /^@index defn / && (chunk in local)) continue
        if (line[i] !~ /^@index (local)?defn /) after_text = (line[i] ~ /^@text /)
        name = line[i]
        sub(/^@index (local)?defn /, "", name)
        if (code && after_text && line[i] ~ /^@index (local)?defn / &&
            ((at_block, name) in stem || name == "real"))
            continue
        if (line[i] ~ /^@index (local)?defn (_Atomic|main)$/) continue
        print line[i]
    }
}
