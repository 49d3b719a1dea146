# Reads `pdftotext -bbox` output and prints every word that stands past the right edge of the
# text block.  A page's text block starts 28 mm from the left edge on a right-hand page and
# 26 mm on a left-hand page (book/attention.sty's geometry) and is 156 mm wide; which of the two
# a page is shows in where most of its lines start.  Punctuation may hang up to 1 mm into
# the margin (microtype's protrusion).
function mm(x) { return x * 72 / 25.4 }
function finish_page(   left, right, k) {
    if (page == 0) return
    left = (starts_odd >= starts_even) ? mm(28) : mm(26)
    right = left + mm(157)
    for (k = 1; k <= nwords; k++)
        if (xmax[k] > right) {
            printf "page %d (of the PDF): \"%s\" ends %.1f mm past the right margin\n", \
                page, text[k], (xmax[k] - right) * 25.4 / 72 + 1
            bad++
        }
}
function attr(line, name,   m) {
    match(line, name "=\"[-0-9.]+\"")
    return substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 3) + 0
}
/<page / { finish_page(); page++; nwords = 0; starts_odd = 0; starts_even = 0; next }
/<word / {
    x0 = attr($0, "xMin")
    if (x0 > mm(28) - 1 && x0 < mm(28) + 1) starts_odd++
    if (x0 > mm(26) - 1 && x0 < mm(26) + 1) starts_even++
    nwords++
    xmax[nwords] = attr($0, "xMax")
    w = $0; sub(/^[^>]*>/, "", w); sub(/<\/word>.*/, "", w)
    text[nwords] = w
}
END { finish_page(); exit bad > 0 }
