# A noweave filter, run after finduses: a name inside a C string or character literal is not
# a use of the identifier ("vexp" in a message is not a call of vexp), and include guards
# (FOO_H) are not identifiers worth an index entry, nor are C's own type names, which
# autodefs takes for definitions in `static bool f(...)`.
BEGIN {
    split("bool char int long short unsigned signed float double void size_t ptrdiff_t " \
          "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t FILE static " \
          "const inline extern", names, " ")
    for (k in names) builtin[names[k]] = 1
}
/^@index (defn|localdefn|use) / && ($3 in builtin) { next }
/^@begin code/ { in_code = 1; quote = ""; comment = 0; print; next }
/^@end code/   { in_code = 0; print; next }
/^@index (defn|localdefn|use) [A-Z0-9_]+_H$/ { next }
in_code && /^@nl/ { quote = ""; print; next }
in_code && /^@index use / && quote != "" { next }
in_code && /^@text / {
    text = substr($0, 7)
    for (i = 1; i <= length(text); i++) {
        c = substr(text, i, 1)
        if (comment) {
            if (c == "*" && substr(text, i + 1, 1) == "/") { comment = 0; i++ }
        } else if (quote != "") {
            if (c == "\\") i++
            else if (c == quote) quote = ""
        } else if (c == "/" && substr(text, i + 1, 1) == "*") { comment = 1; i++ }
        else if (c == "\"" || c == "'") quote = c
        else if (c == "/" && substr(text, i + 1, 1) == "/") break
    }
    print; next
}
{ print }
