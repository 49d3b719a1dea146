/* For the suites' refusal tests.  A refused call prints one line on stderr and aborts; the
 * tests that expect a refusal keep that line off the output.  Used as a checked fixture, it
 * runs in the test's own process, so the runner's stderr is untouched. */
#ifndef REFUSAL_H
#define REFUSAL_H
#include <check.h>
#include <stdio.h>

static void silence_stderr(void)
{
    if (freopen("/dev/null", "w", stderr) == NULL)
        ck_abort_msg("cannot send stderr to /dev/null");
}
#endif
