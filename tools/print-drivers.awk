# A noweave filter for the printed book, run on markup's output before every other filter.
# The appendix of experiment drivers (its opening, book/A3-drivers.nw, then one file a chapter,
# book/drivers/NN-slug.nw) is printed in full in the web edition only.  In print each of its sections keeps its opening prose, up to its first chunk
# or subsection, and of its code only the chunks that another file uses or that the kept prose
# names, once each (however many chunks continue it), with one line that says where its code
# is, so that every reference to it in the chapters still leads to a page.  The drivers' files
# must be the last ones markup reads, the opening first, and must be there: otherwise the filter
# stops with status 2.
BEGIN { drivers = "book/A3-drivers.nw" }
$1 == "@file" {
    if (in_drivers && $2 !~ /^book\/drivers\//) fail($2 " follows the drivers, which must come last")
    if (!in_drivers && $2 ~ /^book\/drivers\//) fail($2 " comes before " drivers)
    in_drivers = in_drivers || ($2 == drivers)
}
!in_drivers {
    if ($1 == "@use") needed[substr($0, 6)] = 1
    print
    next
}
{ held[++lines] = $0; source[lines] = ($1 == "@file") ? $2 : source[lines - 1] }

function fail(message) {
    print "print-drivers.awk: " message > "/dev/stderr"
    failed = 1
    exit 2
}

END {
    if (failed) exit 2
    if (!lines) fail(drivers " is not in the book")
    # First pass: the prose that stays, and the chunks it names.
    keep = 1
    for (i = 1; i <= lines; i++) {
        line = held[i]
        if (line ~ /^@begin code /) in_code = 1
        if (in_code) {
            if (line ~ /^@end code /) { in_code = 0; keep = 0 }
            continue
        }
        if (line ~ /^@text \\(chapter|section)[*{]/) keep = 1
        else if (line ~ /^@text \\subsection/) keep = 0
        kept[i] = keep
        if (keep && line ~ /^@use /) needed[substr(line, 6)] = 1
    }
    # Second pass: the kept prose, and a stub for each needed chunk.
    for (i = 1; i <= lines; i++) {
        line = held[i]
        if (line ~ /^@begin code /) { in_code = 1; begin = line; continue }
        if (in_code) {
            if (line ~ /^@defn /) name = substr(line, 7)
            if (line ~ /^@end code /) {
                in_code = 0
                if ((name in needed) && !(name in stubbed)) {
                    stubbed[name] = 1
                    printf "%s\n@defn %s\n@nl\n@text /* printed in the web edition, and in %s */\n@nl\n%s\n",
                           begin, name, source[i], line
                }
            }
            continue
        }
        if (line ~ /^@(begin|end) docs / || line ~ /^@file / || kept[i]) print line
    }
}
