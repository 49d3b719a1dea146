# Reads `pdftotext -bbox` output and prints every page of the book whose text stops in the upper
# half of the text block, unless the next page opens a chapter (or an appendix, an index, the
# bibliography) or is blank, as LaTeX leaves a page before an opening that must fall on the
# right: such a page was cut short because the float or the chunk that came next did
# not fit, or it is a float page that holds one small figure.  The front matter, before
# chapter 1, is not checked.  Text block of the book's geometry (A4, top 25 mm, bottom 28 mm),
# in points from the top of the page: 70.9 to 762.5.
function attr(line, name) {
    match(line, name "=\"[-0-9.]+\"")
    return substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 3) + 0
}
function finish_page() {
    if (page == 0) return
    last_line[page] = bottom
    opens[page] = (first_words ~ /^(Chapter [0-9]+|Appendix [A-Z]|Index of|Bibliography)/)
    if (first_words ~ /^Chapter 1 /) book_starts = page
}
/<page / { finish_page(); page++; bottom = 0; first_words = ""; nwords = 0; next }
/<word / {
    y = attr($0, "yMax")
    text = $0; sub(/^[^>]*>/, "", text); sub(/<\/word>.*/, "", text)
    if (attr($0, "yMin") > 60 && nwords < 3) { first_words = first_words (nwords ? " " : "") text; nwords++ }
    if (y > bottom) bottom = y
}
END {
    finish_page()
    half = 70.9 + (762.5 - 70.9) / 2
    for (p = book_starts; p < page; p++)
        if (last_line[p] > 0 && last_line[p] < half && !opens[p + 1] && last_line[p + 1] > 0) {
            printf "page %d (of the PDF) is half empty: its text stops %.0f%% down the text block\n", \
                p, 100 * (last_line[p] - 70.9) / (762.5 - 70.9)
            bad++
        }
    exit bad > 0
}
