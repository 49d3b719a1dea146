# A noweave filter, run just before totex: a code line that is only braces (`}`, `{`, `};`) or
# the last line of a typedef (`} Name;`) is kept on the page of the line before it, since alone
# at the top of a page it says nothing.  The line before it ends with \bookkeepnext
# (book/attention.sty), which forbids the page break after that line.  A code line is
# everything up to its @nl; each is held until the next one is complete.
function brace_line() {
    return only_text && (joined ~ /^[ \t]*[{}][{}; \t]*$/ ||
                         joined ~ /^[ \t]*}[ \t]*[A-Za-z_][A-Za-z0-9_]*;[ \t]*$/)
}
# The held line, with the mark before its @nl when the line after it is kept with it.
function emit_previous(keep,   k) {
    for (k = 1; k < previous; k++) print before[k]
    if (keep) print "@literal \\bookkeepnext"
    if (previous > 0) print before[previous]
    previous = 0
}
# A line of braces also says so before its own @nl (\bookbraceline), so that attention.sty
# counts it in no chunk's tail.
function end_line(   k, brace) {
    brace = brace_line()
    emit_previous(brace)
    if (brace) { held[count + 1] = held[count]; held[count] = "@literal \\bookbraceline"; count++ }
    for (k = 1; k <= count; k++) before[k] = held[k]
    previous = count
    count = 0; joined = ""; only_text = 1
}
function flush_all(   k) {
    emit_previous(0)
    for (k = 1; k <= count; k++) print held[k]
    count = 0; joined = ""; only_text = 1
}
BEGIN { only_text = 1 }
/^@begin code/ { flush_all(); print; in_code = 1; in_header = 1; next }
/^@end code/   { flush_all(); print; in_code = 0; next }
!in_code || in_header {
    print
    if (/^@defn /) defined = 1
    # A chunk's first code line follows its header line; the page break before it is the
    # business of attention.sty, which keeps a chunk's first lines together.
    if (/^@nl/ && defined) { in_header = 0; defined = 0 }
    next
}
/^@nl/    { held[++count] = $0; end_line(); next }
/^@text / { held[++count] = $0; joined = joined substr($0, 7); next }
/^@index / || /^@xref / { held[++count] = $0; next }
{ held[++count] = $0; only_text = 0 }
END { flush_all() }
