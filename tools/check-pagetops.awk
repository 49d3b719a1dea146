# Reads `pdftotext -bbox` output and prints every page whose first line under the running
# head is a lone closing brace or a chunk's footer (Defines, Uses, ...), the end of a chunk cut
# off from the chunk; or a line of braces alone (`{`, `}`, `};`) or a typedef's last line
# (`} Name;`), cut off from the line before it; every page that begins with a chunk's tail,
# its last lines down to its footer holding two lines or fewer that are not braces alone
# (`return x;` and `}` count one: LaTeX's rule counts the braces, a reader does not); and
# every page that ends with a chunk's header and fewer than two of its code lines; and every
# page blank but for its running head.
function attr(line, name) {
    match(line, name "=\"[-0-9.]+\"")
    return substr(line, RSTART + length(name) + 2, RLENGTH - length(name) - 3) + 0
}
function line_below(y,   k, next_y) {
    next_y = -1
    for (k = 1; k <= nwords; k++)
        if (ytop[k] > y + 3 && (next_y < 0 || ytop[k] < next_y - 1)) next_y = ytop[k]
    return next_y
}
function line_text(y,   k, text) {
    text = ""
    for (k = 1; k <= nwords; k++)
        if (y >= 0 && ytop[k] > y - 1 && ytop[k] < y + 1) text = text (text == "" ? "" : " ") word[k]
    return text
}
# A chunk's header ends with "≡" (or "+≡"), which stands a little higher than its line's words
# and is the last word of its line; a "≡" inside a line of prose, a congruence, is not one.
function is_header(y,   k, j, last) {
    for (k = 1; k <= nwords; k++)
        if (word[k] ~ /≡$/ && ytop[k] > y - 4 && ytop[k] < y + 4) {
            last = 1
            for (j = 1; j <= nwords; j++)
                if (ytop[j] > y - 4 && ytop[j] < y + 4 && xmin[j] > xmin[k]) last = 0
            if (last) return 1
        }
    return 0
}
function line_left(y,   k, x) {
    x = -1
    for (k = 1; k <= nwords; k++)
        if (ytop[k] > y - 1 && ytop[k] < y + 1 && (x < 0 || xmin[k] < x)) x = xmin[k]
    return x
}
# The page's first lines, down to a chunk's footer within six lines, are a chunk's tail when
# all of them stand to the right of the footer (code is set in from the margin) and at most
# two of them are more than braces; it returns how many are, or -1 when there is no such tail.
function tail_lines(head, footer,   y, n, lines, substance, k) {
    n = 0
    for (y = line_below(head); y >= 0 && n < 6; y = line_below(y)) {
        if (line_text(y) ~ footer) {
            if (n == 0) return -1
            substance = 0
            for (k = 1; k <= n; k++) {
                if (line_left(lines[k]) < line_left(y) + 3) return -1
                substance += line_text(lines[k]) !~ /^[{}][{}; ]*$/
            }
            return substance <= 2 ? substance : -1
        }
        lines[++n] = y
    }
    return -1
}
function header_text(y,   k, text) {
    text = ""
    for (k = 1; k <= nwords; k++)
        if (ytop[k] > y - 4 && ytop[k] < y + 4) text = text (text == "" ? "" : " ") word[k]
    return text
}
function finish_page(   k, head, first, second, footer, y, n, bottom, lines) {
    if (page == 0 || nwords == 0) return
    head = -1
    for (k = 1; k <= nwords; k++)
        if (head < 0 || ytop[k] < head - 1) head = ytop[k]
    if (head > 60) return
    if (line_below(head) < 0) {
        printf "page %d (of the PDF) is blank but for its running head\n", page
        bad++
        return
    }
    first = line_text(line_below(head))
    second = line_text(line_below(line_below(head)))
    footer = "^(Defines:|Uses |This code is used|This definition is continued)"
    if (first ~ footer || (first ~ /^};?$/ && (second == "" || second ~ footer))) {
        printf "page %d (of the PDF) begins with \"%s\", cut off from its chunk\n", \
            page, substr(first, 1, 40)
        bad++
    } else if (first ~ /^[{}][{}; ]*$/ || first ~ /^} ?[A-Za-z_][A-Za-z0-9_]*;$/) {
        printf "page %d (of the PDF) begins with a lone \"%s\", cut off from the line before it\n", \
            page, first
        bad++
    } else if (tail_lines(head, footer) >= 0) {
        printf "page %d (of the PDF) begins with the tail of a chunk, %d line(s) and braces: \"%s\"\n", \
            page, tail_lines(head, footer), substr(first, 1, 40)
        bad++
    }
    # The page's lines from the bottom up, a page number alone at the foot left out: a chunk's
    # header among the last two lines has fewer than two of its code lines on the page.
    n = 0
    for (y = line_below(head); y >= 0; y = line_below(y)) lines[++n] = y
    bottom = n
    if (bottom > 0 && line_text(lines[bottom]) ~ /^[0-9ivxlc]+$/) bottom--
    for (k = bottom; k > bottom - 2 && k > 0; k--)
        if (is_header(lines[k])) {
            printf "page %d (of the PDF) ends with the header of a chunk and %d of its lines: \"%s\"\n", \
                page, bottom - k, substr(header_text(lines[k]), 1, 50)
            bad++
            break
        }
}
/<page / { finish_page(); page++; nwords = 0; next }
/<word / {
    nwords++
    ytop[nwords] = attr($0, "yMin")
    xmin[nwords] = attr($0, "xMin")
    w = $0; sub(/^[^>]*>/, "", w); sub(/<\/word>.*/, "", w)
    word[nwords] = w
}
END { finish_page(); exit bad > 0 }
