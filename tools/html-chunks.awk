# The woven TeX for the HTML edition: every code chunk, from \nwbegincode to \nwendcode, becomes
# \htmlchunk{K}, K counting chunks from 1 in the order of the weave.  noweb's HTML back end
# (tohtml) writes the chunks themselves, in the same order; tools/html-site.mjs puts them there.
{
  line = $0; out = ""
  while (line != "") {
    if (!in_code) {
      at = index(line, "\\nwbegincode{")
      if (at == 0) { out = out line; line = "" }
      else { out = out substr(line, 1, at - 1) "\\htmlchunk{" ++chunks "}"; line = substr(line, at); in_code = 1 }
    } else {
      at = index(line, "\\nwendcode{}")
      if (at == 0) line = ""
      else { line = substr(line, at + length("\\nwendcode{}")); in_code = 0 }
    }
  }
  if (!in_code || out != "") print out
}
END { if (in_code) { print "html-chunks.awk: a chunk has no end" > "/dev/stderr"; exit 1 } }
