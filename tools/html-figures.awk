# The woven TeX for the HTML edition: the body of every figure, from the line after
# \begin{figure} to the line before its \caption, becomes \htmlfigure{K}{NAME}, K counting
# figures from 1 in the order of the weave.  NAME is the gnuplot figure the body inputs
# (generated/figures/NAME), else figure-K.  Each body is also written to DIR/NAME.tex (awk -v
# dir=DIR) as a document of its own, one page cropped to the body, which tools/html-figure.sh
# makes an SVG; DIR/list has a line "K NAME" for each figure.
BEGIN {
  if (dir == "") fail("say where the figures go: awk -v dir=DIR")
  list = dir "/list"
  printf "" > list
}

function fail(message) {
  print "html-figures.awk: " message > "/dev/stderr"
  failed = 1
  exit 1
}

# A document that sets the body as the book does, in a float 156 mm wide (the text block) in
# 11 pt with each line centred, then again at the width of its widest line.  That box with a
# border of 2 pt is the TrimBox of the page it is shipped on; the page has an inch of room
# around it for gnuplot's labels, boxes of no size that may stick out of the box.
function write_figure(file, text) {
  print "% written by tools/html-figures.awk: do not edit" > file
  print "\\documentclass[11pt]{article}" > file
  print "\\usepackage[T1]{fontenc}" > file
  print "\\usepackage{lmodern}" > file
  print "\\usepackage{amsmath,amssymb}" > file
  print "\\usepackage{graphicx}" > file
  print "\\usepackage{xcolor}" > file
  print "\\usepackage{tikz}" > file
  print "\\usetikzlibrary{arrows.meta,positioning,calc}" > file
  print "\\usepackage{booktabs}" > file
  print "\\usepackage{array}" > file
  print "\\input{generated/tex/numbers}" > file
  print "\\makeatletter" > file
  print "\\input{attention-text}" > file
  print "\\textwidth=156mm" > file
  print "\\newtoks\\htmlfigurebody" > file
  print "\\newbox\\figure@box" > file
  print "\\newbox\\figure@line" > file
  print "\\newdimen\\figure@width" > file
  print "\\newdimen\\figure@room \\figure@room=1in" > file
  print "% \\figure@set{W}: the body in \\figure@box, lines W wide, as a float of the book sets it." > file
  print "\\def\\figure@set#1{\\setbox\\figure@box\\vbox{\\hsize#1\\relax\\@parboxrestore" > file
  print "  \\@floatboxreset\\linewidth\\textwidth\\centering\\the\\htmlfigurebody\\par}}" > file
  print "% \\figure@pop: takes the items off the end of the list; the widest line goes to \\figure@width." > file
  print "\\def\\figure@pop{\\ifnum\\lastnodetype=\\m@ne\\else" > file
  print "    \\ifnum\\lastnodetype=\\@ne \\setbox\\figure@line\\lastbox" > file
  print "      \\setbox\\figure@line\\hbox{\\unhcopy\\figure@line}\\figure@widest" > file
  print "    \\else\\ifnum\\lastnodetype=\\tw@ \\setbox\\figure@line\\lastbox\\figure@widest" > file
  print "    \\else\\ifnum\\lastnodetype=11 \\unskip" > file
  print "    \\else\\ifnum\\lastnodetype=12 \\unkern" > file
  print "    \\else\\ifnum\\lastnodetype=13 \\unpenalty" > file
  print "    \\else\\errmessage{html figure: its body is more than lines, glue, kerns and penalties}" > file
  print "    \\fi\\fi\\fi\\fi\\fi" > file
  print "    \\expandafter\\figure@pop\\fi}" > file
  print "\\def\\figure@widest{\\ifdim\\wd\\figure@line>\\figure@width" > file
  print "  \\global\\figure@width\\wd\\figure@line\\fi}" > file
  print "% \\figure@bp{L}: the length L in bp, without its unit." > file
  print "\\def\\figure@bp#1{\\strip@pt\\dimexpr(#1)*7200/7227\\relax}" > file
  print "% The body as wide as its widest line, shipped out with its page." > file
  print "\\def\\htmlfigureship{\\figure@set\\textwidth" > file
  print "  \\global\\figure@width\\z@ \\setbox\\z@\\vbox{\\unvcopy\\figure@box\\figure@pop}%" > file
  print "  \\figure@set\\figure@width" > file
  print "  \\dimen@\\dimexpr\\figure@room+2pt\\relax" > file
  print "  \\pdfpagewidth\\dimexpr\\wd\\figure@box+2\\dimen@\\relax" > file
  print "  \\pdfpageheight\\dimexpr\\ht\\figure@box+\\dp\\figure@box+2\\dimen@\\relax" > file
  print "  \\pdfhorigin\\dimen@ \\pdfvorigin\\dimen@" > file
  print "  \\edef\\figure@trim{/TrimBox [\\figure@bp\\figure@room\\space\\figure@bp\\figure@room\\space" > file
  print "    \\figure@bp{\\pdfpagewidth-\\figure@room}\\space\\figure@bp{\\pdfpageheight-\\figure@room}]}%" > file
  print "  \\pdfpageattr\\expandafter{\\figure@trim}\\shipout\\box\\figure@box}" > file
  print "\\makeatother" > file
  print "\\begin{document}" > file
  print "% A token register holds the body as it is, # and all (a macro would not)." > file
  print "\\htmlfigurebody={%" > file
  printf "%s", text > file
  print "}" > file
  print "\\htmlfigureship" > file
  print "\\end{document}" > file
  close(file)
}

in_body && /\\caption/ {
  name = "figure-" ++figures
  if (match(body, /\\input\{generated\/figures\/[^}]*\}/)) {
    name = substr(body, RSTART, RLENGTH - 1)
    sub(/.*\//, "", name)
  }
  write_figure(dir "/" name ".tex", body)
  print figures, name > list
  print "\\htmlfigure{" figures "}{" name "}"
  in_body = 0
}
in_body && /\\end\{figure\}/ { fail("the figure that begins on line " start " has no \\caption") }
in_body { body = body $0 "\n"; next }
/\\begin\{figure\}/ { in_body = 1; body = ""; start = NR }
{ print }
END {
  if (failed) exit 1
  if (in_body) fail("the figure that begins on line " start " has no end")
  close(list)
}
