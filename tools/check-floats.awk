# Reads generated/tex/attention.pos (book/attention.sty writes it: "chunk-begin N page y",
# "chunk-end N page y", "float TYPE page y"; y in sp from the bottom of the page) and prints
# every float that stands between the first and the last line of a chunk.
function place(page, y) { return sprintf("%06d %012d", page, 100000000000 - y) }
$1 == "chunk-begin" { begin[$2] = place($3, $4); first[$2] = $3 }
$1 == "chunk-end"   { if ($2 in begin) { end_[$2] = place($3, $4); last[$2] = $3 } }
$1 == "float"       { nfloats++; fplace[nfloats] = place($3, $4); ftype[nfloats] = $2
                      fpage[nfloats] = $3 }
END {
    for (c in end_)
        for (f = 1; f <= nfloats; f++)
            if (fplace[f] > begin[c] && fplace[f] < end_[c]) {
                printf "a %s on page %d stands inside the chunk that runs from page %d to %d\n", \
                    ftype[f], fpage[f], first[c], last[c]
                bad++
            }
    exit bad > 0
}
