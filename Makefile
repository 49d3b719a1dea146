# Attention from Scratch: the one entry point.
#
# Everything is found from the sources: chapters are book/NN-slug.nw, their root chunks are
# found with noroots, programs are the roots named <slug>-main.c (<slug>-mpi-main.c for one
# that calls MPI, with flags of its own), every other .c root is a
# module of the library, test suites are tests/check_<module>.c and figures are figures/*.gp.
# Adding a chapter adds no line here.  `make help` lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

# ---------------------------------------------------------------- tools and flags
CC      ?= cc
CFLAGS  ?= -O2 -g -march=native
LDFLAGS ?=
LDLIBS  ?=
OPENMP  ?= -fopenmp
# The book's rules, kept apart from CFLAGS and placed after it, so that CFLAGS changes the
# optimisation and the target, never the rules.  -ffp-contract=off: no fused multiply-add
# unless the code asks for one.  gcc in ISO C mode already does not contract, but clang by
# default fuses a*b + c within an expression, so without it the two compilers' results differ.
# The warning policy: every build asks for the strict set of warnings, and a reader's build
# prints them and goes on, since each new compiler or processor tuning adds warnings of its
# own.  WERROR=yes makes them errors; make portability's compiler matrix (tools/portability.sh),
# where compilers and targets are fixed, sets it, and CI runs that.
WARNINGS := -Wall -Wextra -Wpedantic
WERROR  ?=
STRICT  := -std=c11 $(WARNINGS) $(if $(filter yes,$(WERROR)),-Werror) -ffp-contract=off -D_POSIX_C_SOURCE=200809L
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
NOWEB_LIB ?= /usr/lib/noweb
# Where objects and programs go; the sanitizer build sets it to generated/san.
BUILD   ?= generated
# What the build needs beyond gcc and make (a command, pc:MODULE for pkg-config, or a path),
# and the Debian packages that hold them; tools/deps.sh checks and installs.
# Chapter 7 compares its head with the NumPy program the book grew from, with OpenBLAS, which
# NumPy then uses for its products instead of the reference BLAS (a hundred times slower on this
# book's machines).  Each list is recorded in its stamp (generated/stamps/deps*), so a tool or a
# package added here is installed on a tree already built.
# Chapter 13 measures xz on the held-out text through its library, liblzma (LIBRARIES, below).
# Chapter 15's program runs on Open MPI: its compiler wrapper and launcher, and the flags of
# its C interface (pkg-config's ompi-c), for that program alone (MPI_MAINS, below).
TOOLS    := /usr/include/stdio.h notangle noweave noroots cpif pdflatex bibtex makeindex gnuplot pkg-config pc:check pdftotext \
            /usr/share/texlive/texmf-dist/tex/latex/pgf/frontendlayer/tikz.sty /usr/bin/python3 \
            /usr/lib/python3/dist-packages/numpy/__init__.py /usr/lib/*/libopenblas.so.0 pc:liblzma \
            mpicc mpirun pc:ompi-c
PACKAGES := libc6-dev noweb texlive-latex-base texlive-latex-recommended lmodern gnuplot-nox check pkg-config \
            poppler-utils texlive-pictures python3-numpy libopenblas0-pthread liblzma-dev \
            openmpi-bin libopenmpi-dev
# `make portability` needs more: the compilers of its matrix, a cross compiler, qemu
# (tools/portability.sh).  Debian's libomp-N-dev packages exclude one another, so one OpenMP
# header serves every clang: libomp-dev's (clang 14's), or whichever libomp-N-dev is there (the
# pattern is matched by the shell in tools/deps.sh); libomp-dev is installed only where none is,
# so that installing never swaps one out.
# PORT_BUILDS="native aarch64" runs only those of its builds.
PORT_TOOLS    := clang gcc-12 gcc-11 clang-14 clang-19 clang-22 aarch64-linux-gnu-gcc qemu-aarch64 \
                 /usr/lib/llvm-*/lib/clang/*/include/omp.h \
                 /usr/lib/aarch64-linux-gnu/pkgconfig/check.pc /usr/lib/aarch64-linux-gnu/libsubunit.a \
                 /usr/lib/aarch64-linux-gnu/pkgconfig/liblzma.pc /usr/lib/aarch64-linux-gnu/liblzma.a
PORT_PACKAGES := gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user clang gcc-12 gcc-11 clang-19 clang-22 \
                 $(if $(wildcard /usr/lib/llvm-*/lib/clang/*/include/omp.h),,libomp-dev) check:arm64 \
                 libsubunit-dev:arm64 liblzma-dev:arm64
# `make html` needs tex4ht (texlive-plain-generic) and the one converter its configuration runs,
# dvisvgm (for the pictures of chapter 8's tables; texlive-binaries only recommends it),
# pdftocairo for the figures and Node for the site; `make check-html` drives Debian's headless
# Chromium through chromedriver.  Each installs its own the same way; nothing is downloaded but
# Debian packages.
HTML_TOOLS    := tex4ht t4ht dvisvgm pdftocairo node /usr/share/texlive/texmf-dist/tex/generic/tex4ht/tex4ht.sty
HTML_PACKAGES := texlive-plain-generic dvisvgm poppler-utils nodejs
BROWSER_TOOLS    := chromium chromedriver
BROWSER_PACKAGES := chromium chromium-driver
# The libraries that the book's modules call, by their pkg-config names: liblzma, chapter 13's
# compressor.  Every program and the test runner link them; a -static link (the aarch64 build of
# make portability) asks pkg-config for what a static library needs besides.
LIBRARIES := liblzma
LIBRARY_CFLAGS = $$(pkg-config --cflags $(LIBRARIES))
LIBRARY_LIBS = $$(pkg-config --libs $(if $(filter -static,$(LDFLAGS)),--static) $(LIBRARIES))
# Every program run goes through this lock, so that timed runs never share the machine, even
# under make -j.
RUN_LOCK := flock generated/.run.lock
# Tests are not timed: their OpenMP threads sleep instead of spinning while they wait, so that a
# busy machine slows them down less (a suite runs three threads on two cores).
TEST_ENV = CK_DEFAULT_TIMEOUT=$${CK_DEFAULT_TIMEOUT:-$(1)} OMP_WAIT_POLICY=passive
# The sanitizer run's leak check knows two runtimes' own blocks (tools/lsan.supp).  Open MPI's
# are known by the libraries on their stacks, which the fast unwinder does not reach: an MPI
# program's ranks (which inherit its environment through mpirun) unwind the slow way.
SAN_ENV = LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan.supp
MPI_SAN_ENV := ASAN_OPTIONS=fast_unwind_on_malloc=0
empty :=
space := $(empty) $(empty)
# Set when make runs with -n: the closing message of `make` is then left out.
DRY_RUN = $(findstring n,$(firstword -$(MAKEFLAGS)))

ifeq ($(V),1)
Q :=
say := @true
else
Q := @
say := @printf '  %-8s %s\n'
endif

# ---------------------------------------------------------------- what the sources say
# The appendices (book/A1-slug.nw, ...) are chapters too: they tangle, lint and weave like the
# others, and sort after them; the weave puts them after \appendix.
CHAPTERS := $(sort $(wildcard book/[0-9][0-9]-*.nw) $(wildcard book/A[0-9]-*.nw))
APPENDICES := $(filter book/A%,$(CHAPTERS))
# A chapter's experiment driver, book/drivers/NN-slug.nw, is a section of the drivers' appendix
# (book/A3-drivers.nw opens it), woven after every other file, and tangled with its chapter alone.
DRIVERS  := $(sort $(wildcard book/drivers/*.nw))
# Every source of the book, in the order of the weave.
SOURCES_NW := $(CHAPTERS) $(DRIVERS)
# A root chunk is named by the file it makes.
ROOT_NAME := [A-Za-z0-9.+-]+\.(c|h|sh)
SLUGS    := $(patsubst book/%.nw,%,$(CHAPTERS))
FIGURES  := $(patsubst figures/%.gp,%,$(wildcard figures/*.gp))
SUITES   := $(patsubst tests/check_%.c,%,$(wildcard tests/check_*.c))
BIBS     := $(wildcard book/*.bib)

NO_BUILD_GOALS := clean help
ifneq ($(filter-out $(NO_BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
# The first step of every build: find the tools, install them where we may, else stop with the
# one line that says how.  It runs while make reads this file, before anything else is made.
# The stamp records both lists (tools/deps.sh), so a list that gains a tool or a package is
# checked and installed again on a tree already built.
ifneq ($(file < generated/stamps/deps),$(strip $(TOOLS)) | $(strip $(PACKAGES)))
DEPS_PROBLEM := $(shell tools/deps.sh generated/stamps/deps '$(strip $(TOOLS))' '$(strip $(PACKAGES))')
ifneq ($(strip $(DEPS_PROBLEM)),)
$(error $(DEPS_PROBLEM))
endif
endif
endif
ifneq ($(filter-out $(NO_BUILD_GOALS) deps,$(or $(MAKECMDGOALS),all)),)
# One small makefile per chapter, written from its root chunks (see the rule below); remaking
# it tangles the chapter, and a chapter that fails to tangle stops the build here.
include $(patsubst %,generated/mk/%.mk,$(SLUGS)) generated/mk/figures.mk
-include $(wildcard $(BUILD)/obj/*.d)
endif

# ROOTS is filled by the chapter makefiles: every root chunk of every chapter.
# A program whose root is <slug>-mpi-main.c calls MPI: it alone compiles with MPI's headers and
# links its library, so the library and the test runner need no mpi.h.  MPI=no leaves those
# programs out (make portability's aarch64 build, which links -static: Debian has no static
# libmpi, nor an arm64 mpi.h beside the cross compiler).
MPI      ?= yes
SOURCES  := $(filter %.c,$(ROOTS))
MPI_MAINS := $(filter %-mpi-main.c,$(SOURCES))
MAINS    := $(filter-out $(if $(filter no,$(MPI)),$(MPI_MAINS)),$(filter %-main.c,$(SOURCES)))
MODULES  := $(filter-out $(filter %-main.c,$(SOURCES)),$(SOURCES))
PROGRAMS := $(patsubst chunks/%-main.c,%,$(patsubst %-mpi-main.c,%-main.c,$(MAINS)))
MPI_PROGRAMS := $(filter $(patsubst chunks/%-mpi-main.c,%,$(MPI_MAINS)),$(PROGRAMS))
MPI_CFLAGS = $$(pkg-config --cflags ompi-c)
MPI_LIBS = $$(pkg-config --libs ompi-c)
LIBRARY  := $(BUILD)/libattention.a
MODULE_OBJECTS := $(patsubst chunks/%.c,$(BUILD)/obj/%.o,$(MODULES))
BINARIES := $(patsubst %,$(BUILD)/bin/%,$(PROGRAMS))
MPI_BINARIES := $(patsubst %,$(BUILD)/bin/%,$(MPI_PROGRAMS))
CHECK_RUNNER := $(BUILD)/bin/check-all
NUMBERS  := $(patsubst %,generated/numbers/%.tex,$(PROGRAMS))
FIGURE_TEX := $(patsubst %,generated/figures/%.tex,$(FIGURES))

# The exercise edition (made by `make workbook`) holds a file WORKBOOK listing its exercises.
# There a stub leaves parameters and helpers unused, and a program that reaches a stub exits
# with status 3: the build then uses the book's own data for that chapter, from reference/.
IS_WORKBOOK := $(wildcard WORKBOOK)
WORKBOOK_CFLAGS := $(if $(IS_WORKBOOK),-Wno-unused-parameter -Wno-unused-variable \
                   -Wno-unused-but-set-variable -Wno-unused-function)
# CFLAGS may not switch warnings off: its -w and -Wno-* are dropped, with a note.
DROPPED_CFLAGS := $(filter -w -Wno-%,$(CFLAGS))
ifneq ($(DROPPED_CFLAGS),)
$(info note: CFLAGS may not relax the book's warnings; ignoring $(DROPPED_CFLAGS))
endif
ALL_CFLAGS := $(OPENMP) -Ichunks $(filter-out -w -Wno-%,$(CFLAGS)) $(STRICT) $(WORKBOOK_CFLAGS) \
              $(if $(SAN),$(SANITIZE) -O1)
ALL_LDFLAGS := $(OPENMP) $(LDFLAGS) $(if $(SAN),$(SANITIZE))

# The build knows its flags: everything compiled or linked depends on this stamp, which is
# rewritten only when the text of the compile and link commands changes.
FLAGS_STAMP := $(BUILD)/stamps/flags
FLAGS_TEXT  := $(strip $(CC) $(ALL_CFLAGS) | $(ALL_LDFLAGS) $(LDLIBS))
# keep_stamp FILE,TEXT (through $(eval)): write TEXT into FILE when it holds anything else, so
# that what depends on FILE is remade exactly when TEXT changes.
define keep_stamp
ifneq ($$(file < $(1)),$(2))
$$(shell mkdir -p $(dir $(1)))
$$(file > $(1),$(2))
endif
endef
ifneq ($(filter-out $(NO_BUILD_GOALS) deps,$(or $(MAKECMDGOALS),all)),)
$(eval $(call keep_stamp,$(FLAGS_STAMP),$(FLAGS_TEXT)))
endif
# RUN_FLAGS are given to every program the book runs (RUN_FLAGS=--smoke: the smallest sizes,
# as the proof of the workbook in make check uses them).  A change of them runs the programs again.
RUN_FLAGS ?=
RUN_STAMP := generated/stamps/run-flags
RUN_TEXT  := run flags: $(strip $(RUN_FLAGS))
ifneq ($(filter-out $(NO_BUILD_GOALS) deps,$(or $(MAKECMDGOALS),all)),)
$(eval $(call keep_stamp,$(RUN_STAMP),$(RUN_TEXT)))
ifeq ($(BUILD),generated)
$(foreach entry,$(shell tools/code-hash.sh generated --programs $(PROGRAMS) | tr ' ' '='),\
  $(eval $(call keep_stamp,generated/stamps/code/$(firstword $(subst =, ,$(entry))),$(lastword $(subst =, ,$(entry))))))
endif
endif

.PHONY: all corpus check-fast check-execs tangle build objects programs run figures book check bench clean help deps lint portability reliability build-rules mpi \
        tests sanitize latex-refs print-rules workbook workbook-proof check-exercise put-back html check-html FORCE $(addprefix run-,$(PROGRAMS))

all: book
	$(if $(DRY_RUN),,@echo)
	$(if $(DRY_RUN),,@echo "The book is ready: $(CURDIR)/attention.pdf")

help:
	@echo "make            the whole book: tangle, compile, run, draw, typeset (attention.pdf)"
	@echo "make tangle     write every root chunk of book/*.nw into chunks/"
	@echo "make run        run every chapter program and print its report"
	@echo "make run-SLUG   run one chapter program (SLUG: $(or $(PROGRAMS),see book/*.nw))"
	@echo "make figures    draw every figure from the programs' data"
	@echo "make book       typeset attention.pdf"
	@echo "make check      Check suites, sanitizer run, MPI runs, chunk lint, LaTeX references, print rules"
	@echo "make check-fast the lint, and the suites whose code changed since they last passed"
	@echo "make workbook-proof  the student's path through the workbook, at the smallest sizes"
	@echo "make corpus     a new snapshot of the sources, which chapter 13 trains on"
	@echo "make check-execs  a build from scratch under strace: every program it ran is in a tool list"
	@echo "make bench      the long runs of every program that takes --bench"
	@echo "make portability  the compiler matrix (every file, -Werror, 5 compilers x 14 x86 targets and"
	@echo "                 4 aarch64 ones), then builds and tests for SSE2, AVX2, native, -DNDEBUG, clang, aarch64"
	@echo "make html       the HTML edition, in generated/html/ (open generated/html/index.html)"
	@echo "make check-html the HTML edition checked in headless Chromium (screenshots: generated/html-shots/)"
	@echo "make workbook   the exercise edition, in workbook/ (there: make check, make check-exercise E=3.2)"
	@echo "make put-back E=3.2  put an exercise's chunk back into workbook/ from the book"
	@echo "make clean      remove everything the build made"
	@echo "Variables: CC, CFLAGS, LDFLAGS, V=1 (show commands), WERROR=yes (warnings stop the build),"
	@echo "           RUN_FLAGS=--smoke (the programs at their smallest sizes), PORT_BUILDS (make portability: some builds)"

# ---------------------------------------------------------------- tools
# The check itself runs while make reads this file (above); `make deps` only asks for it.
deps:
	$(Q)echo "  DEPS     every tool is there (generated/stamps/deps)"

# ---------------------------------------------------------------- tangle
# A chapter's makefile names its roots; remaking it tangles the chapter: every root, with
# #line directives, through cpif, which keeps unchanged files' times.  Make remakes its
# included makefiles before anything else, so one make tangles every chapter first, and a
# sub-make finds them all up to date.  The chunk files have no rule of their own.
# A chapter's program may use chunks that an appendix defines (the lab bench keeps a program's
# plumbing there), and its driver's (book/drivers/NN-slug.nw), so a chapter is tangled together
# with the appendices and its own driver; its roots are the file names among the chunks that the
# chapter and its driver define and do not use.  A change to one driver retangles its chapter
# alone.
# $(call tangle_rule,SLUG)
define tangle_rule
generated/mk/$(1).mk: book/$(1).nw $(APPENDICES) $(wildcard book/drivers/$(1).nw) Makefile
	$$(say) TANGLE book/$(1).nw
	$$(Q)mkdir -p chunks $$(@D)
	$$(Q)own="book/$(1).nw $(wildcard book/drivers/$(1).nw)"; \
	roots=$$$$(noroots $$$$own | sed -e 's/^<<//' -e 's/>>$$$$//' | grep -E '^$$(ROOT_NAME)$$$$' | tr '\n' ' '); \
	for root in $$$$roots; do notangle -L -R"$$$$root" $$$$own $(filter-out book/$(1).nw,$(APPENDICES)) \
	  | cpif chunks/$$$$root || exit 1; done; \
	echo "ROOTS += $$$$(for root in $$$$roots; do printf 'chunks/%s ' $$$$root; done)" > $$@
endef
$(foreach slug,$(SLUGS),$(eval $(call tangle_rule,$(slug))))

tangle: $(patsubst %,generated/mk/%.mk,$(SLUGS))

# ---------------------------------------------------------------- compile
# Every chapter is tangled before anything compiles: a chunk may include another chapter's header.
$(BUILD)/obj/%.o: chunks/%.c $(FLAGS_STAMP)
	$(say) CC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(LIBRARY_CFLAGS) -MMD -MP -c $< -o $@

# An MPI program's own file, the only one that includes mpi.h (the shorter stem wins).
$(BUILD)/obj/%-mpi-main.o: chunks/%-mpi-main.c $(FLAGS_STAMP)
	$(say) CC "$< (MPI)"
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(LIBRARY_CFLAGS) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

$(LIBRARY): $(MODULE_OBJECTS)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

# The linker names what it took (-t -t: the objects, and the library's members), so that the
# build knows the code each program links (tools/code-hash.sh).
$(filter-out $(MPI_BINARIES),$(BINARIES)): $(BUILD)/bin/%: $(BUILD)/obj/%-main.o $(LIBRARY) $(FLAGS_STAMP)
	$(say) LINK $@
	$(Q)mkdir -p $(@D) $(BUILD)/link
	$(Q)$(CC) $(ALL_LDFLAGS) $< $(LIBRARY) $(LIBRARY_LIBS) $(LDLIBS) -lm -Wl,-t,-t -o $@ > $(BUILD)/link/$*.trace
$(MPI_BINARIES): $(BUILD)/bin/%: $(BUILD)/obj/%-mpi-main.o $(LIBRARY) $(FLAGS_STAMP)
	$(say) LINK $@
	$(Q)mkdir -p $(@D) $(BUILD)/link
	$(Q)$(CC) $(ALL_LDFLAGS) $< $(LIBRARY) $(LIBRARY_LIBS) $(MPI_LIBS) $(LDLIBS) -lm -Wl,-t,-t -o $@ \
	  > $(BUILD)/link/$*.trace

programs: $(BINARIES)
build: $(BINARIES) $(CHECK_RUNNER)
# Every tangled file and every suite compiled, nothing linked: one cell of make portability's
# compiler matrix.
objects: $(MODULE_OBJECTS) $(patsubst chunks/%.c,$(BUILD)/obj/%.o,$(MAINS)) \
         $(patsubst %,$(BUILD)/tests/check_%.o,$(SUITES))

# ---------------------------------------------------------------- run
# A program runs again only when the code it links changed.  generated/stamps/code/PROGRAM
# holds the hash of that code with line numbers left out (tools/code-hash.sh, over the objects
# its last link took); make computes it while it reads this file and rewrites the stamp only
# when it changed, as it does the flags' stamp.  An edit of prose, or one that only moves a
# chunk's lines, relinks the program (its debugging lines moved) and leaves its run alone.  The
# run itself records the hash of the link it ran, so a first build runs each program once; and
# the hash and the run's flags it last ran with (.ran), so that code changed and changed back
# does not run it again.
$(patsubst %,generated/stamps/code/%,$(PROGRAMS)): ;

# A program's numbers file stands for its whole run (it is written last).  Every run holds
# $(RUN_LOCK), so that no two run side by side.  A run that took more than ten seconds last time
# is announced with that time (generated/stamps/seconds/PROGRAM); where make writes to a
# terminal, the program's progress goes there too, on descriptor 3, and never into its report.
# In the workbook, a program that stops at an exercise still to write (status 3) leaves its
# chapter the book's own numbers and data, from reference/: what it wrote before it stopped is
# removed, so that no figure mixes the two.
# RUN_ARGS_<program> adds a program's own arguments (chapter 13's names its corpus).
generated/numbers/%.tex: generated/stamps/code/% $(RUN_STAMP) | generated/bin/%
	$(Q)mkdir -p generated/reports generated/numbers generated/data generated/stamps/seconds generated/stamps/code
	$(Q)tools/code-hash.sh generated --programs $* | cut -d' ' -f2 > generated/stamps/code/$*.new; \
	if cmp -s generated/stamps/code/$*.new generated/stamps/code/$*; then rm generated/stamps/code/$*.new; \
	else mv generated/stamps/code/$*.new generated/stamps/code/$*; fi
	$(Q)cat generated/stamps/code/$* $(filter-out generated/stamps/code/%,$^) > generated/stamps/code/$*.now
	$(Q)if [ -f $@ ] && cmp -s generated/stamps/code/$*.now generated/stamps/code/$*.ran; then \
	  printf '  %-8s %s\n' SAME "$*: its code, flags and input are those it last ran with"; touch $@; exit 0; fi; \
	printf '  %-8s %s\n' RUN "$*$(if $(RUN_ARGS_$*), $(RUN_ARGS_$*))"; \
	last=$$(cat generated/stamps/seconds/$* 2>/dev/null || echo 0); \
	if [ "$${last%.*}" -ge 10 ]; then echo "           ($* took $$last s last time on this machine)"; fi; \
	if [ -t 2 ]; then exec 3>&2; fi; \
	start=$$(date +%s.%N); \
	$(RUN_LOCK) generated/bin/$* --out generated $(RUN_FLAGS) $(RUN_ARGS_$*) \
	  > generated/reports/$*.txt 2> generated/reports/$*.err; \
	status=$$?; exec 3>&-; cat generated/reports/$*.err >&2; \
	[ $$status != 0 ] || { awk -v start=$$start -v end=$$(date +%s.%N) 'BEGIN { printf "%.0f\n", end - start }' \
	  > generated/stamps/seconds/$* && mv generated/stamps/code/$*.now generated/stamps/code/$*.ran; }; \
	if [ $$status = 3 ] && [ -f WORKBOOK ]; then \
	  echo "  $* stopped at an exercise still to write; its numbers, data and figures are the book's"; \
	  rm -f generated/data/$*-* generated/numbers/$*-*.tex; \
	  for file in reference/data/$*-* reference/numbers/$*.tex reference/numbers/$*-*.tex; do \
	    [ ! -e "$$file" ] || cp "$$file" generated/$${file#reference/} || exit 1; done; \
	  [ -f $@ ] || { echo "reference/numbers/$*.tex is missing: make the workbook again"; exit 1; }; \
	  touch $@; \
	elif [ $$status != 0 ]; then \
	  cat generated/reports/$*.txt; echo "$* failed with status $$status"; exit $$status; fi

# Chapter 13's program trains on the book's own sources, from a snapshot of them
# (generated/corpus/, taken by `make corpus`, and by the first build of a tree that has none):
# editing a chapter does not run chapter 13 again until the next snapshot.
CORPUS := generated/corpus
CORPUS_STAMP := $(CORPUS)/SNAPSHOT
RUN_ARGS_text = $(if $(filter --smoke,$(RUN_FLAGS)),,--corpus $(CORPUS))
generated/numbers/text.tex: $(if $(filter --smoke,$(RUN_FLAGS)),,$(CORPUS_STAMP))
$(CORPUS_STAMP) corpus:
	$(say) CORPUS "book/*.nw book/drivers/*.nw -> $(CORPUS)/"
	$(Q)rm -rf $(CORPUS).tmp && mkdir -p $(CORPUS).tmp
	$(Q)for nw in $(SOURCES_NW); do cp "$$nw" "$(CORPUS).tmp/$$(echo "$${nw#book/}" | tr / -)" || exit 1; done
	$(Q)cd $(CORPUS).tmp && files=$$(ls | LC_ALL=C sort) && { echo "date $$(date -u '+%Y-%m-%d %H:%M') UTC"; \
	  echo "sha256 $$(cat $$files | sha256sum | cut -d' ' -f1)"; \
	  echo "files $$(echo $$files | wc -w)"; } > ../SNAPSHOT.tmp && mv ../SNAPSHOT.tmp SNAPSHOT
	$(Q)if [ -f $(CORPUS_STAMP) ] && [ "$$(sed -n 2p $(CORPUS_STAMP))" = "$$(sed -n 2p $(CORPUS).tmp/SNAPSHOT)" ]; then \
	  rm -rf $(CORPUS).tmp; echo "  CORPUS   unchanged since $$(sed -n 's/^date //p' $(CORPUS_STAMP))"; \
	else rm -rf $(CORPUS) && mv $(CORPUS).tmp $(CORPUS); sed 's/^/           /' $(CORPUS_STAMP); fi

run: $(addprefix run-,$(PROGRAMS))
run-text: $(if $(filter --smoke,$(RUN_FLAGS)),,$(CORPUS_STAMP))
$(addprefix run-,$(PROGRAMS)): run-%: generated/bin/%
	$(Q)mkdir -p generated/reports
	$(Q)if [ -t 2 ]; then exec 3>&2; fi; \
	$(RUN_LOCK) $< --out generated $(RUN_FLAGS) $(RUN_ARGS_$*) > generated/reports/$*.txt; status=$$?; \
	  printf '\n==== %s ====\n' "$*"; cat generated/reports/$*.txt; exit $$status

# ---------------------------------------------------------------- figures
# A figure waits for the runs whose data it reads, and for them alone (generated/mk/figures.mk,
# written by tools/figure-deps.sh from the names in the scripts).
generated/mk/figures.mk: $(wildcard figures/*.gp figures/*.gpi) tools/figure-deps.sh \
                         $(patsubst %,generated/mk/%.mk,$(SLUGS))
	$(Q)tools/figure-deps.sh $$(ls chunks/*-main.c | sed -e 's|^chunks/||' -e 's|\(-mpi\)\{0,1\}-main\.c$$||') \
	  > $@.tmp && mv $@.tmp $@
generated/figures/%.tex: figures/%.gp figures/style.gpi
	$(say) PLOT $*
	$(Q)mkdir -p $(@D)
	$(Q)gnuplot -e "outfile='$@'" figures/style.gpi $< 2> $@.log || { cat $@.log; exit 1; }
	$(Q)if grep -q -i -E 'warning|error' $@.log; then cat $@.log; fi
figures: $(FIGURE_TEX)

# ---------------------------------------------------------------- the book
# All chapters are woven in one run so that the chunk and identifier indexes span the book.
# This is `noweave -n -index -autodefs c` spelled out, with filters added: after autodefs,
# tools/nolocals.awk drops the local variables that autodefs takes for global definitions;
# after finduses, tools/nostrings.awk drops the uses inside strings; before totex,
# tools/keeplines.awk keeps a line of braces on the page of the line before it.
# The book is woven twice: woven.tex whole, for the web edition, and printed.tex for the PDF,
# where tools/print-drivers.awk first leaves the drivers' code to the web edition (their
# appendix keeps its prose and a note in each chunk that a chapter uses).  The printed text is
# then cut
# where the first appendix begins: the master inputs chapters.tex before \appendix and
# appendices.tex after it.
# $(call cut_appendices,WOVEN,CHAPTERS,APPENDICES): the woven text up to the first appendix's
# file name, and from it on.
cut_appendices = awk -v chapters=$(2) -v appendices=$(3) ' \
	  BEGIN { printf "" > appendices } \
	  !cut && (at = index($$0, "\\nwfilename{book/A")) > 0 { \
	    print substr($$0, 1, at - 1) > chapters; print substr($$0, at) > appendices; cut = 1; next } \
	  { print > (cut ? appendices : chapters) }' $(1)
# $(call weave,FILTER): the chapters' markup through FILTER and the index filters, as TeX.
weave = $(NOWEB_LIB)/markup $(SOURCES_NW) | $(1) | $(NOWEB_LIB)/autodefs.c | awk -f tools/nolocals.awk | \
	  $(NOWEB_LIB)/finduses | awk -f tools/nostrings.awk | $(NOWEB_LIB)/noidx | \
	  awk -f tools/keeplines.awk | $(NOWEB_LIB)/totex
generated/tex/chapters.tex: $(SOURCES_NW) tools/nolocals.awk tools/nostrings.awk tools/keeplines.awk \
                            tools/print-drivers.awk
	$(say) WEAVE 'book/*.nw'
	$(Q)mkdir -p $(@D)
	$(Q)$(call weave,cat) > $(@D)/woven.tex.tmp && mv $(@D)/woven.tex.tmp $(@D)/woven.tex
	$(Q)$(call weave,awk -f tools/print-drivers.awk) > $(@D)/printed.tex.tmp && \
	  mv $(@D)/printed.tex.tmp $(@D)/printed.tex
	$(Q)$(call cut_appendices,$(@D)/printed.tex,$@.tmp,$(@D)/appendices.tex.tmp)
	$(Q)mv $(@D)/appendices.tex.tmp $(@D)/appendices.tex && mv $@.tmp $@
generated/tex/appendices.tex: generated/tex/chapters.tex

# The preface's example compiler error quotes the line where rng_seed sets the increment.
generated/tex/numbers.tex: $(NUMBERS) book/01-foundations.nw
	$(Q)mkdir -p $(@D)
	$(Q)cat $(NUMBERS) /dev/null > $@
	$(Q)echo "\\newcommand{\\prefaceErrorLine}{$$(grep -n 'rng->increment = (stream' book/01-foundations.nw | cut -d: -f1)}" >> $@

generated/tex/bibliography.tex: $(BIBS)
	$(Q)mkdir -p $(@D)
	$(Q)echo "\\bibliography{$$(echo $(basename $(BIBS)) | tr ' ' ',')}" > $@

LATEX := TEXINPUTS=book: pdflatex -interaction=nonstopmode -halt-on-error -output-directory=generated/tex
# LaTeX runs only the passes it needs.  A pass reads what the last one wrote (the labels and
# citations of the .aux, the contents, the index sorted by makeindex, the bibliography); another
# pass follows while LaTeX asks for one or any of those changed in the pass, so an edit that
# moves no page costs one pass.  bibtex runs when the citations or the .bib files changed.
attention.pdf: book/attention.tex $(wildcard book/*.sty book/*.tex) $(BIBS) generated/tex/chapters.tex \
               generated/tex/appendices.tex \
               generated/tex/numbers.tex generated/tex/bibliography.tex $(FIGURE_TEX)
	$(say) LATEX $@
	$(Q)t=generated/tex/attention; for pass in 1 2 3 4 5 6; do \
	  for f in aux toc ind bbl; do if [ -f $$t.$$f ]; then cp $$t.$$f $$t.$$f.read; else rm -f $$t.$$f.read; fi; done; \
	  $(LATEX) book/attention.tex > generated/tex/latex.out || { tail -40 generated/tex/latex.out; exit 1; }; \
	  grep -E '^\\(citation|bibdata|bibstyle)' $$t.aux | cat - $(BIBS) > $$t.cites.new; \
	  if [ ! -f $$t.bbl ] || ! cmp -s $$t.cites.new $$t.cites; then \
	    bibtex $$t > generated/tex/bibtex.out || { cat generated/tex/bibtex.out; exit 1; }; \
	    mv $$t.cites.new $$t.cites; else rm $$t.cites.new; fi; \
	  makeindex -q $$t.idx || exit 1; \
	  if ! grep -q -E 'Rerun to get|Label\(s\) may have changed' $$t.log && cmp -s $$t.aux $$t.aux.read && \
	     cmp -s $$t.toc $$t.toc.read && cmp -s $$t.ind $$t.ind.read && cmp -s $$t.bbl $$t.bbl.read; then break; fi; \
	  [ $$pass != 6 ] || { echo "LaTeX's labels did not settle in $$pass passes"; exit 1; }; \
	done
	$(Q)if grep -q -E 'undefined (references|citations)|Reference .* undefined' generated/tex/attention.log; then \
	  echo "warning: LaTeX reports undefined references (make check fails on them):"; \
	  grep -E 'Reference .* undefined|Citation .* undefined' generated/tex/attention.log | sort -u | head; fi
	$(Q)cp generated/tex/attention.pdf $@

book: attention.pdf

# ---------------------------------------------------------------- check
# One runner holds every suite, so that the closing line counts every check.
$(BUILD)/tests/check-main.c: $(wildcard tests/check_*.c)
	$(Q)mkdir -p $(@D)
	$(Q){ echo '#include <check.h>'; echo '#include <stdlib.h>'; \
	  for s in $(SUITES); do echo "Suite *$${s}_suite(void);"; done; \
	  echo 'int main(void) {'; echo '  SRunner *runner = srunner_create(NULL);'; \
	  for s in $(SUITES); do echo "  srunner_add_suite(runner, $${s}_suite());"; done; \
	  echo '  srunner_run_all(runner, CK_NORMAL);'; \
	  echo '  int failed = srunner_ntests_failed(runner);'; \
	  echo '  srunner_free(runner);'; echo '  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;'; echo '}'; } > $@

$(BUILD)/tests/%.o: $(BUILD)/tests/%.c $(FLAGS_STAMP)
	$(Q)$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c $(FLAGS_STAMP)
	$(say) CC $<
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $$(pkg-config --cflags check) -MMD -MP -c $< -o $@

-include $(wildcard $(BUILD)/tests/*.d)

# One suite is compiled for other vectors than the library: on x86-64 for plain SSE2, whatever
# CFLAGS asks for.  It shows that the cost module's header describes one layout for every
# includer (tests/check_otherflags.c).
OTHER_VECTORS := $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-march=x86-64 -mtune=generic)
$(BUILD)/tests/check_otherflags.o: tests/check_otherflags.c $(FLAGS_STAMP)
	$(say) CC "$< ($(or $(OTHER_VECTORS),the library's flags))"
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(OTHER_VECTORS) $$(pkg-config --cflags check) -MMD -MP -c $< -o $@

$(CHECK_RUNNER): $(BUILD)/tests/check-main.o $(patsubst %,$(BUILD)/tests/check_%.o,$(SUITES)) $(LIBRARY) \
                 $(FLAGS_STAMP)
	$(say) LINK $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_LDFLAGS) $(filter %.o,$^) $(LIBRARY) $$(pkg-config --libs check) $(LIBRARY_LIBS) $(LDLIBS) -lm -o $@

# Every suite that passes has its code's hash recorded (generated/stamps/suites/SUITE), so that
# make check-fast knows which suites a later change touched.
SUITE_STAMPS := $(BUILD)/stamps/suites
tests: $(CHECK_RUNNER)
	$(Q)$(call TEST_ENV,60) $(RUN_LOCK) $(CHECK_RUNNER) || { $(if $(IS_WORKBOOK),$(unsolved);) exit 1; }
	$(Q)mkdir -p $(SUITE_STAMPS) && tools/code-hash.sh $(BUILD) --suites $(SUITES) | \
	  while read -r suite hash; do echo "$$hash" > $(SUITE_STAMPS)/$$suite; done

# The quick loop: the lint, then only the suites that a change touched.  A suite is touched when
# the code it links (its own, and every module whose header it includes: tools/code-hash.sh
# --suites) changed since it last passed, here or in make check.  make check stays the whole proof.
check-fast: $(CHECK_RUNNER)
	$(Q)$(MAKE) --no-print-directory lint
	$(Q)mkdir -p $(SUITE_STAMPS) && tools/code-hash.sh $(BUILD) --suites $(SUITES) > $(SUITE_STAMPS)/now
	$(Q)touched=$$(while read -r suite hash; do \
	  [ "$$(cat $(SUITE_STAMPS)/$$suite 2>/dev/null)" = "$$hash" ] || echo $$suite; done < $(SUITE_STAMPS)/now); \
	if [ -z "$$touched" ]; then echo "  CHECK    no suite's code changed since it last passed"; exit 0; fi; \
	failed=""; for suite in $$touched; do \
	  echo "  SUITE    $$suite"; \
	  if CK_RUN_SUITE=$$suite $(call TEST_ENV,60) $(RUN_LOCK) $(CHECK_RUNNER) > $(SUITE_STAMPS)/$$suite.log 2>&1; then \
	    tail -1 $(SUITE_STAMPS)/$$suite.log | sed 's/^/           /'; \
	    awk -v suite=$$suite '$$1 == suite { print $$2 }' $(SUITE_STAMPS)/now > $(SUITE_STAMPS)/$$suite; \
	  else cat $(SUITE_STAMPS)/$$suite.log; failed="$$failed $$suite"; fi; done; \
	untouched=$$(( $(words $(SUITES)) - $$(echo $$touched | wc -w) )); \
	if [ -n "$$failed" ]; then echo "check-fast: failing:$$failed"; exit 1; fi; \
	echo "  CHECK    $$(echo $$touched | wc -w) suites touched and passing; $$untouched untouched since they last passed"

# In the workbook: the exercises whose stubs are still in the sources, with the line to edit.
unsolved = grep -n 'exercise_unsolved("' $(SOURCES_NW) 2>/dev/null | \
  sed -E 's/^([^:]*):([0-9]+):.*exercise_unsolved\("([^"]*)".*/  exercise \3 is still to write: \1:\2/' | \
  { echo "Exercises still to write:"; cat; } >&2

# Every program at its smallest size, and every suite, built with ASan and UBSan.  Nothing here
# is timed, so the build uses every core, and the programs and the suites run side by side, one
# per core, each program with an output folder of its own; they hold the run lock shared, so
# that no timed run of the book shares the machine with them.
SAN_LOCK := flock -s generated/.run.lock
sanitize:
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) BUILD=generated/san SAN=1 generated/san/bin/check-all \
	  $(patsubst %,generated/san/bin/%,$(PROGRAMS))
	$(Q)echo "  SAN      $(PROGRAMS) (--smoke)"
	$(Q)rm -rf generated/san/out && printf '%s\n' $(PROGRAMS) | xargs -P $$(nproc) -I{} sh -c \
	  'case " $(MPI_PROGRAMS) " in *" {} "*) export $(MPI_SAN_ENV);; esac; \
	   $(SAN_ENV) $(SAN_LOCK) generated/san/bin/{} --smoke --out generated/san/out/{} > generated/san/{}.txt 2>&1; \
	   status=$$?; if [ $$status = 3 ] && [ -f WORKBOOK ]; then echo "  ({} stopped at an exercise still to write)"; \
	   elif [ $$status != 0 ]; then cat generated/san/{}.txt; echo "{} failed under the sanitizers"; exit 1; fi'
	$(Q)echo "  SAN      check-all, $(words $(SUITES)) suites"
	$(Q)printf '%s\n' $(SUITES) | xargs -P $$(nproc) -I{} sh -c \
	  'CK_RUN_SUITE={} $(call TEST_ENV,300) $(SAN_ENV) $(SAN_LOCK) generated/san/bin/check-all \
	     > generated/san/check-{}.txt 2>&1 || { if [ -f WORKBOOK ]; then echo "  (suite {} fails: exercises still to write)"; \
	     else cat generated/san/check-{}.txt; echo "suite {} failed under the sanitizers"; exit 1; fi; }'
	$(Q)cat generated/san/check-*.txt | awk '/^[0-9]+%: Checks:/ { gsub(/,/, ""); checks += $$3; bad += $$5 + $$7 } \
	  END { printf "  SAN      %d checks, %d failures or errors\n", checks, bad }'

# The chunk lint: no undefined chunk, every root a file name, no root used as a chunk twice, and
# no chunk of a chapter that only its driver uses: a chapter's program names its own parts.
# A chapter is read with the appendices and its driver, as it is tangled; a driver with its
# chapter and the appendices; an appendix with every file, so that a chunk it defines for a
# chapter counts as used.  Each file answers for its own chunks.
lint:
	$(Q)status=0; for nw in $(SOURCES_NW); do \
	  case $$nw in \
	    book/A*) with="$(SOURCES_NW)";; \
	    book/drivers/*) with="book/$${nw#book/drivers/} $(APPENDICES)";; \
	    *) with="$(APPENDICES) $$(ls book/drivers/$${nw#book/} 2>/dev/null)";; esac; \
	  $(NOWEB_LIB)/markup $$nw $$(for f in $$with; do [ $$f = $$nw ] || echo $$f; done) | awk -v nw=$$nw ' \
	    /^@file /{ file=substr($$0,7) } \
	    /^@defn /{ name=substr($$0,7); defined[name]=1; if (file == nw) own[name]=1 } \
	    /^@use /{ name=substr($$0,6); used[name]=1; if (file == nw) uses[name]=1 } \
	    END { bad=0; \
	      for (n in uses) if (!(n in defined)) { print nw ": chunk <<" n ">> is used but never defined"; bad=1 } \
	      for (n in own) if (!(n in used) && n !~ /^$(ROOT_NAME)$$/) { \
	        print nw ": chunk <<" n ">> is defined but never used (a root must be a file name)"; bad=1 } \
	      for (n in own) if (n ~ /_/) { print nw ": chunk <<" n ">> has an underscore"; bad=1 } \
	      exit bad }' || status=1; done; \
	dupes=$$(for nw in $(SOURCES_NW); do noroots $$nw | grep -E '^<<$(ROOT_NAME)>>$$'; done | sort | uniq -d); \
	if [ -n "$$dupes" ]; then echo "roots defined by two chapters: $$dupes"; status=1; fi; \
	strays=$$(noroots $(CHAPTERS) | grep -v -E '^<<$(ROOT_NAME)>>$$' | tr '\n' ' '); \
	if [ -n "$$strays" ]; then \
	  echo "chunks of the chapters that no chapter uses (a driver may not pick them up): $$strays"; status=1; fi; \
	exit $$status
	$(Q)echo "  LINT     chunks: every use defined, every root a file, none unused"

# The build's own rules: a built book has nothing left to do; a reader's build asks for the
# strict warnings without -Werror, and CFLAGS cannot relax them; the compiler matrix of make
# portability adds -Werror, which its CFLAGS cannot take away either.  Each is checked on a
# compile command that make only prints, in a scratch BUILD dir.
STRICT_WARNINGS_IN = for w in $(WARNINGS); do case " $(1) " in *" $$w "*) ;; \
  *) echo "$(2) lacks $$w: $(1)"; exit 1;; esac; done; \
  case " $(1) " in *" -w "*|*" -Wno-"*) echo "$(2) relaxes the warnings: $(1)"; exit 1;; esac
build-rules: attention.pdf
	$(Q)$(MAKE) --no-print-directory -q attention.pdf || \
	  { echo "make -q attention.pdf: the book just built is not up to date"; exit 1; }
	$(Q)command=$$($(MAKE) --no-print-directory -n BUILD=generated/rules \
	  CFLAGS='-O0 -w -Wno-error -Wno-all' generated/rules/obj/rng.o 2>/dev/null | grep -- '-c chunks/rng.c'); \
	$(call STRICT_WARNINGS_IN,$$command,a reader's build); \
	case " $$command " in *" -Werror "*) echo "a reader's build stops on warnings: $$command"; exit 1;; esac; \
	command=$$($(MAKE) --no-print-directory -n BUILD=generated/rules WERROR=yes \
	  CFLAGS='-O0 -Wno-error' generated/rules/obj/rng.o 2>/dev/null | grep -- '-c chunks/rng.c'); \
	case " $$command " in *" -Werror "*) ;; *) echo "CFLAGS took -Werror away: $$command"; exit 1;; esac; \
	$(call STRICT_WARNINGS_IN,$$command,WERROR=yes with CFLAGS=-Wno-error); \
	command=$$(MAKE='$(MAKE) --no-print-directory' tools/portability.sh --show gcc-12 x86-64); \
	case " $$command " in *" -Werror "*) ;; *) echo "the compiler matrix lacks -Werror: $$command"; exit 1;; esac; \
	$(call STRICT_WARNINGS_IN,$$command,the compiler matrix)
	$(Q)echo "  RULES    nothing to do on a built tree; warnings on, and errors only in the compiler matrix"

# MPI cannot start inside Check's forked tests (MPI_Init once a process), so the MPI programs
# are checked by running them, each inside a TERM timeout beside mpirun's own --timeout.
# chapter 15's program checks its ring against one process for P = 1-4 and stops with status 2
# if they differ; a rank made to fail stops it with status 2 and its one line; a TERM in the
# middle of a run ends it with the signal; and after each, no process of it is left.
MPI_CHECK := generated/mpi-check
# $(call no_rank_left,PROGRAM): fail if a process of PROGRAM's build still runs.
no_rank_left = sleep 0.5; if ps -eo args | grep -F -- '$(CURDIR)/$(BUILD)/bin/$(1) ' | grep -v grep; then \
	  echo "processes of $(1) are left behind (above)"; exit 1; fi
mpi: $(MPI_BINARIES)
	$(Q)rm -rf $(MPI_CHECK) && mkdir -p $(MPI_CHECK)
	$(Q)$(foreach p,$(MPI_PROGRAMS),\
	  $(RUN_LOCK) timeout -s TERM 120 $(BUILD)/bin/$(p) --smoke --out $(MPI_CHECK)/$(p) \
	    > $(MPI_CHECK)/$(p).txt 2>&1 || { cat $(MPI_CHECK)/$(p).txt; echo "$(p) failed"; exit 1; }; \
	  $(call no_rank_left,$(p)); \
	  status=0; $(RUN_LOCK) timeout -s TERM 120 $(BUILD)/bin/$(p) --smoke --fail-rank 2 \
	    --out $(MPI_CHECK)/$(p)-fail > $(MPI_CHECK)/$(p)-fail.txt 2> $(MPI_CHECK)/$(p)-fail.err || status=$$?; \
	  [ $$status = 2 ] && [ "$$(grep -c -v 'fails on purpose' $(MPI_CHECK)/$(p)-fail.err)" = 1 ] || \
	    { cat $(MPI_CHECK)/$(p)-fail.err; echo "$(p) with a failing rank: status $$status, not 2 and one line"; exit 1; }; \
	  $(call no_rank_left,$(p)); \
	  status=0; $(RUN_LOCK) sh -c '$(BUILD)/bin/$(p) --out $(MPI_CHECK)/$(p)-term > /dev/null 2>&1 & \
	    sleep 2; kill -TERM $$!; wait $$!' 2> /dev/null || status=$$?; \
	  [ $$status = 143 ] || { echo "$(p) sent TERM: status $$status, not 143"; exit 1; }; \
	  $(call no_rank_left,$(p));)
	$(Q)echo "  MPI      $(MPI_PROGRAMS): P = 1-4 equal to one process; a failing rank and TERM leave no process"

# Attacks a reader or an attacker would try on the programs (tools/check-reliability.sh).
reliability: $(BINARIES)
	$(Q)$(RUN_LOCK) tools/check-reliability.sh $(BUILD)/bin

latex-refs: attention.pdf
	$(Q)if grep -q -E 'undefined (references|citations)|Reference .* undefined|Citation .* undefined' generated/tex/attention.log; then \
	  grep -E 'Reference .* undefined|Citation .* undefined|undefined references' generated/tex/attention.log | sort -u; \
	  echo "LaTeX reports undefined references"; exit 1; fi
	$(Q)if grep -q 'nw@notdef' generated/tex/chapters.tex generated/tex/appendices.tex; then \
	  echo "the printed book uses a chunk it does not print (tools/print-drivers.awk)"; exit 1; fi
	$(Q)echo "  LATEX    no undefined references or citations; every chunk the print uses is printed"

# The print rules (tools/check-print.sh): code lines that fit, nothing past the margin, no
# float inside a chunk, no chunk footer or lone brace at the top of a page, no guillemets.
print-rules: attention.pdf
	$(Q)tools/check-print.sh attention.pdf generated/tex/attention.pos

# The suites run last, so that Check's summary is the closing line.  The student's path through
# the workbook is `make workbook-proof`; CI walks it at full size on every submission.
ifeq ($(IS_WORKBOOK),)
check: lint latex-refs sanitize print-rules build-rules reliability mpi
	$(Q)$(MAKE) --no-print-directory tests
else
# In the workbook, a student's loop: the exercises still to write, then the tests, which fail
# while any is; only when they pass, the lint, the sanitizer run and the book's references.
check:
	$(Q)if grep -q 'exercise_unsolved("' $(SOURCES_NW); then $(unsolved); fi
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)if grep -q 'exercise_unsolved("' $(SOURCES_NW); then \
	  echo "The tests pass, but exercises are still to write (above)."; exit 1; fi
	$(Q)$(MAKE) --no-print-directory lint latex-refs sanitize
	$(Q)echo "Every exercise is written, and every test passes."
endif

# In the workbook: the tests that reach exercise E alone (the map of which those are was made
# with the workbook, from the book: reference/exercise-tests).
check-exercise: $(CHECK_RUNNER)
	$(Q)MAKE='$(MAKE) --no-print-directory' $(call TEST_ENV,60) $(RUN_LOCK) \
	  tools/check-exercise.sh '$(E)' reference/exercise-tests $(CHECK_RUNNER)

# ---------------------------------------------------------------- the workbook
# A copy of the book in which every chunk marked \exercisechunk{LABEL} is a stub.  Exercise
# numbers are read from LaTeX's labels, so they are those printed in the book.  The workbook
# also gets the book's numbers and data (reference/), and the map of the tests that reach each
# exercise, made from a traced copy of the book (tools/exercise-tests.sh).
WORKBOOK_DIR ?= workbook
EXERCISE_NUMBERS := generated/exercise-numbers
EXERCISE_TESTS := generated/exercise-tests
# Rewritten only when the numbers change, so that the map is made again only when it must be.
$(EXERCISE_NUMBERS): attention.pdf
	$(Q)sed -n 's/^\\newlabel{\(ex:[^}]*\)}{{\([^}]*\)}.*/\1 \2/p' generated/tex/attention.aux > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(EXERCISE_TESTS): $(EXERCISE_NUMBERS) $(SOURCES_NW) $(wildcard tests/*.c tests/*.h) Makefile \
                   tools/workbook.awk tools/exercise-tests.sh
	$(say) TRACE "the tests that reach each exercise"
	$(Q)MAKE='$(MAKE) --no-print-directory' $(RUN_LOCK) tools/exercise-tests.sh $(EXERCISE_NUMBERS) $@

workbook: attention.pdf $(EXERCISE_TESTS)
	$(Q)rm -rf $(WORKBOOK_DIR).tmp && mkdir -p $(WORKBOOK_DIR).tmp/reference
	$(Q)cp -R Makefile README.md .gitignore book figures tests tools $(WORKBOOK_DIR).tmp/
	$(Q)cp -R generated/data generated/numbers $(WORKBOOK_DIR).tmp/reference/
	$(Q)cp $(EXERCISE_NUMBERS) $(WORKBOOK_DIR).tmp/reference/exercise-numbers
	$(Q)cp $(EXERCISE_TESTS) $(WORKBOOK_DIR).tmp/reference/exercise-tests
	$(Q)echo "# The exercises of this workbook: number, the line to edit, the chunk." > $(WORKBOOK_DIR).tmp/WORKBOOK
	$(Q)for nw in $(SOURCES_NW); do \
	  awk -v numbers=$(EXERCISE_NUMBERS) -v listing=$(WORKBOOK_DIR).tmp/WORKBOOK \
	      -v source=$$nw -f tools/workbook.awk $$nw > $(WORKBOOK_DIR).tmp/$$nw || exit 1; done
	$(Q)rm -rf $(WORKBOOK_DIR) && mv $(WORKBOOK_DIR).tmp $(WORKBOOK_DIR)
	$(Q)echo "The workbook is in $(WORKBOOK_DIR)/ with $$(grep -c '^exercise' $(WORKBOOK_DIR)/WORKBOOK) exercises to write:"
	$(Q)grep '^exercise' $(WORKBOOK_DIR)/WORKBOOK | cut -d' ' -f1-3

# Put exercise E's chunk back into a workbook from the book (a teacher's key, or the proof):
# make put-back E=3.2 [WORKBOOK_DIR=workbook].
put-back:
	$(Q)tools/put-back.sh '$(E)' $(WORKBOOK_DIR)

# The proof, run by `make check`, walks the student's path at the smallest sizes
# (tools/workbook-proof.sh): the workbook's make gives its PDF; its make check fails, naming every
# exercise with its line, and every failing test is one that reaches a stub; an exercise put
# back leaves the list and passes make check-exercise; with every one back, the tests pass.
PROOF := generated/workbook-proof
workbook-proof: attention.pdf $(EXERCISE_TESTS)
	$(Q)$(MAKE) --no-print-directory WORKBOOK_DIR=$(PROOF) workbook > /dev/null
	$(Q)MAKE='$(MAKE) --no-print-directory' tools/workbook-proof.sh $(PROOF) --smoke

# ---------------------------------------------------------------- bench
# Every program that takes --bench (its --help says so) runs its long sweep, one after another
# on the run lock.  BENCH_ARGS_<program> adds a program's own arguments: on x86-64, cost's
# native run compares itself with cost built for plain SSE2 and for AVX2, each in its own BUILD
# dir; all are built before the first timed run starts.
ISA_TARGETS := $(if $(filter x86_64,$(shell uname -m)),x86-64 x86-64-v3)
ISA_COSTS   := $(patsubst %,generated/isa/%/bin/cost,$(ISA_TARGETS))
BENCH_ARGS_cost = $(if $(ISA_COSTS),--compare $(subst $(space),:,$(strip $(ISA_COSTS))))
# Each of those builds plans its own kernel (chapter 7, "A plan for this machine") before the
# sweep, and keeps the plan beside itself.
ISA_PLANS   := $(patsubst %,%.plan,$(ISA_COSTS))
bench: $(BINARIES) $(ISA_COSTS) $(ISA_PLANS)
	$(Q)mkdir -p generated/data
	$(Q)ran=""; $(foreach p,$(PROGRAMS),\
	  if generated/bin/$(p) --help | grep -q -e '^ *--bench '; then echo "  BENCH    $(p)"; \
	    ran=yes; $(RUN_LOCK) generated/bin/$(p) --bench --out generated $(BENCH_ARGS_$(p)) || exit 1; fi;) \
	[ -n "$$ran" ] || { echo "no program takes --bench"; exit 1; }

generated/isa/%/bin/cost: FORCE | tangle
	$(Q)$(MAKE) --no-print-directory BUILD=generated/isa/$* CFLAGS="-O2 -g -march=$*" $@
generated/isa/%/bin/cost.plan: generated/isa/%/bin/cost
	$(say) PLAN $<
	$(Q)$(RUN_LOCK) $< --plan --out generated/isa/$*

# ---------------------------------------------------------------- the HTML edition
# The same woven TeX as the PDF's, with every code chunk and every figure's body replaced by a
# marker (tools/html-chunks.awk, tools/html-figures.awk), goes through tex4ht (book/attention.cfg,
# tools/html-tex.sh); noweb's own HTML back end writes the chunks, with their links, from the
# same markup and index filters as the PDF's weave; each figure is typeset alone and converted
# to SVG (tools/html-figure.sh); tools/html-site.mjs puts them together in generated/html/.
HTML_BUILD := generated/html-build
html: generated/html/index.html
	$(Q)echo "  HTML     open $(CURDIR)/generated/html/index.html"

# The stamp records its lists, and tools/deps.sh returns at once when they are the same, so the
# check runs every time and installs what a list gained; as an order-only prerequisite it remakes
# nothing that depends on it.
generated/stamps/deps-html: FORCE
	$(Q)tools/deps.sh $@ '$(strip $(HTML_TOOLS))' '$(strip $(HTML_PACKAGES))' || exit 1

$(HTML_BUILD)/codes.html: $(SOURCES_NW) tools/nolocals.awk tools/nostrings.awk | generated/stamps/deps-html
	$(say) WEAVE 'book/*.nw (HTML)'
	$(Q)mkdir -p $(@D)
	$(Q){ $(NOWEB_LIB)/markup $(SOURCES_NW); printf '@begin docs 0\n@text <nowebchunks>\n@nl\n@text <nowebindex>\n@nl\n@end docs 0\n'; } | \
	  $(NOWEB_LIB)/autodefs.c | awk -f tools/nolocals.awk | $(NOWEB_LIB)/finduses | \
	  awk -f tools/nostrings.awk | $(NOWEB_LIB)/noidx | $(NOWEB_LIB)/tohtml -localindex > $@.tmp
	$(Q)mv $@.tmp $@

# The woven TeX with its markers, cut where the appendices begin as the PDF's is; the figures'
# pages are written beside it, one per figure, and each becomes an SVG.
$(HTML_BUILD)/figures/converted: generated/tex/chapters.tex tools/html-chunks.awk tools/html-figures.awk \
                            tools/html-figure.sh book/attention-text.tex $(FIGURE_TEX) generated/tex/numbers.tex \
                            | generated/stamps/deps-html
	$(say) FIGURES 'HTML (SVG)'
	$(Q)rm -rf $(@D) && mkdir -p $(@D) $(HTML_BUILD)/generated/tex
	$(Q)awk -f tools/html-chunks.awk generated/tex/woven.tex | awk -v dir=$(@D) -f tools/html-figures.awk > $(HTML_BUILD)/woven.tex
	$(Q)$(call cut_appendices,$(HTML_BUILD)/woven.tex,$(HTML_BUILD)/generated/tex/chapters.tex,$(HTML_BUILD)/generated/tex/appendices.tex)
	$(Q)cut -d' ' -f2 $(@D)/list | xargs -P $$(nproc) -I{} tools/html-figure.sh $(@D) {} $(@D)/{}.svg
	$(Q)touch $@

# tex4ht reads the book's master through a wrapper that declares the markers; the bibliography
# is the PDF's.
$(HTML_BUILD)/attention.html: $(HTML_BUILD)/figures/converted attention.pdf book/attention.cfg tools/html-tex.sh
	$(say) TEX4HT book/attention.tex
	$(Q)cp book/attention.cfg generated/tex/attention.bbl generated/tex/numbers.tex $(HTML_BUILD)/
	$(Q)printf '%s\n' '\newcommand\htmlchunk[1]{}\newcommand\htmlfigure[2]{}\input{book/attention.tex}' > $(HTML_BUILD)/attention.tex
	$(Q)tools/html-tex.sh $(HTML_BUILD)

generated/html/index.html: $(HTML_BUILD)/attention.html $(HTML_BUILD)/codes.html tools/html-site.mjs \
                           tools/html/style.css tools/html/book.js $(wildcard figures/*.gp)
	$(say) SITE generated/html
	$(Q)node tools/html-site.mjs $(HTML_BUILD) generated/html

# The site in a real browser: every page loads cleanly, links resolve, no TeX shows, figures and
# math render, chunk references scroll, nothing scrolls sideways at 390 and 1280 px; and every
# number of the text has the same value in the PDF and in the HTML.
check-html: html
	$(Q)tools/deps.sh generated/stamps/deps-browser '$(strip $(BROWSER_TOOLS))' '$(strip $(BROWSER_PACKAGES))' || exit 1
	$(Q)node tools/html-numbers.mjs generated/tex/numbers.tex $(HTML_BUILD)/woven.tex generated/tex/printed.tex \
	  attention.pdf generated/html
	$(Q)node tools/check-html.mjs generated/html generated/html-shots

# ---------------------------------------------------------------- the lists, on this machine
# CI proves the tool lists on a fresh Debian root (tools/fresh-root.sh).  On a developer's
# machine, whose packages would hide a tool no list names, `make check-execs` builds a copy of
# the book from scratch (generated/execs/) under strace, make, make html and make check-html,
# and checks every program it ran against the lists (tools/check-execs.sh).
EXECS_DIR := generated/execs
check-execs:
	$(Q)tools/deps.sh generated/stamps/deps-strace strace strace || exit 1
	$(Q)rm -rf $(EXECS_DIR) && mkdir -p $(EXECS_DIR)
	$(Q)tar -c --exclude=./generated --exclude=./chunks --exclude=./workbook --exclude=./workbook.tmp \
	  --exclude=./attention.pdf --exclude=./.git . | tar -x -C $(EXECS_DIR)
	$(say) EXECS "make, make html and make check-html in $(EXECS_DIR), under strace"
	$(Q)cd $(EXECS_DIR) && strace -f -qq -e trace=execve -o ../execs.log \
	  $(MAKE) --no-print-directory all html check-html > ../execs.out 2>&1 || { tail -20 ../execs.out; exit 1; }
	$(Q)tools/check-execs.sh generated/execs.log '$(strip $(PACKAGES) $(HTML_PACKAGES) $(BROWSER_PACKAGES))'

# ---------------------------------------------------------------- portability
# The library, the programs and the suites built for every target the book supports, each in
# generated/port/<name>; every build's suites run (aarch64's under qemu).  See tools/portability.sh.
portability: tangle
	$(Q)tools/deps.sh --arch arm64 generated/stamps/deps-port '$(strip $(PORT_TOOLS))' '$(strip $(PORT_PACKAGES))' || exit 1
	$(Q)MAKE='$(MAKE) --no-print-directory' PORT_BUILDS='$(PORT_BUILDS)' tools/portability.sh

FORCE:

# ---------------------------------------------------------------- clean
clean:
	rm -rf chunks generated workbook attention.pdf
