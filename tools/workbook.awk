# Write the exercise edition of one chapter: every code chunk whose first doc line after it
# (the `@` line itself, or the line after an `@ %def` line) holds \exercisechunk{LABEL} gets
# its body replaced by a stub that names the exercise and exits with status 3.
#
#   awk -v numbers=FILE -v listing=FILE -v source=book/NN-slug.nw -f tools/workbook.awk book/NN-slug.nw
#
# numbers: lines "LABEL NUMBER" (from LaTeX's .aux); listing (optional): one line per stub is
# appended, "exercise NUMBER SOURCE:LINE <<chunk name>>".
# only="3.2 11.1" (optional): stub those exercises only, and keep the others' chunks as written
# (an exercise put back into a workbook).
# trace=1: stub nothing; instead the first line of each exercise's chunk begins by noting, once
# a process, that the chunk was reached (exercise_reached), for the map of the tests that reach
# each exercise (tools/exercise-tests.sh).
BEGIN {
    while ((getline entry < numbers) > 0) {
        split(entry, field, " ")
        number[field[1]] = field[2]
    }
    in_code = 0; pending = 0; out = 0
    if (only != "") { split(only, wanted, " "); for (k in wanted) stubbed[wanted[k]] = 1 }
}

function emit(text) { print text; out++ }

function label_in(text,    start, rest) {
    start = index(text, "\\exercisechunk{")
    if (start == 0) return ""
    rest = substr(text, start + 15)
    return substr(rest, 1, index(rest, "}") - 1)
}

# Print the chunk held in header/body, as a stub when label is not empty.
function flush_chunk(label,    k, name, n) {
    emit(header)
    if (label == "") {
        for (k = 1; k <= lines; k++) emit(body[k])
        return
    }
    n = number[label]
    if (n == "") {
        print "workbook: " source ": no exercise number for label " label > "/dev/stderr"
        failed = 1
        n = label
    }
    if (trace) {
        emit("{ static _Atomic int reached; void exercise_reached(const char *); " \
             "if (!reached) { reached = 1; exercise_reached(\"" n "\"); } } " body[1])
        for (k = 2; k <= lines; k++) emit(body[k])
        if (listing != "") print "exercise " n " " source " " header >> listing
        return
    }
    if (only != "" && !(n in stubbed)) {
        for (k = 1; k <= lines; k++) emit(body[k])
        return
    }
    name = header
    sub(/=[ \t]*$/, "", name)
    emit("/* Exercise " n ": write this chunk; make check says when it is right. */")
    emit("{ _Noreturn void exercise_unsolved(const char *, const char *, int);")
    emit("  exercise_unsolved(\"" n "\", __FILE__, __LINE__); }")
    if (listing != "") print "exercise " n " " source ":" out " " name >> listing
}

pending {
    flush_chunk(label_in($0))
    emit(end_line)
    pending = 0
    in_code = 0
}

in_code && /^@( |$)/ {
    if ($0 ~ /^@ %def/) { pending = 1; end_line = $0; next }
    flush_chunk(label_in($0))
    emit($0)
    in_code = 0
    next
}

/^<<.*>>=[ \t]*$/ {
    if (in_code) flush_chunk("")
    in_code = 1; header = $0; lines = 0
    next
}

in_code { body[++lines] = $0; next }

{ emit($0) }

END {
    if (pending) { flush_chunk(""); emit(end_line) }
    else if (in_code) flush_chunk("")
    exit failed
}
