# Reads `pdftotext -bbox` output and prints every page whose first line under the running
# head is a lone closing brace or a chunk's footer (Defines, Uses, ...): the end of a chunk
# cut off from the chunk.
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
function finish_page(   k, head, first, second, footer) {
    if (page == 0 || nwords == 0) return
    head = -1
    for (k = 1; k <= nwords; k++)
        if (head < 0 || ytop[k] < head - 1) head = ytop[k]
    if (head > 60) return
    first = line_text(line_below(head))
    second = line_text(line_below(line_below(head)))
    footer = "^(Defines:|Uses |This code is used|This definition is continued)"
    if (first ~ footer || (first ~ /^};?$/ && (second == "" || second ~ footer))) {
        printf "page %d (of the PDF) begins with \"%s\", cut off from its chunk\n", \
            page, substr(first, 1, 40)
        bad++
    }
}
/<page / { finish_page(); page++; nwords = 0; next }
/<word / {
    nwords++
    ytop[nwords] = attr($0, "yMin")
    w = $0; sub(/^[^>]*>/, "", w); sub(/<\/word>.*/, "", w)
    word[nwords] = w
}
END { finish_page(); exit bad > 0 }
