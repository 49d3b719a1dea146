/* Tests of the contract module (chapter 1): a kept requirement costs nothing, a broken one
 * stops the program with SIGABRT after one line on stderr that names the file, the line, the
 * function and the condition. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "contract.h"
#include "refusal.h"

static int twice(int n)
{
    REQUIRE(n >= 0);
    return 2 * n;
}
static const int twice_require_line = __LINE__ - 3;

START_TEST(a_kept_requirement_returns)
{
    ck_assert_int_eq(twice(21), 42);
}
END_TEST

START_TEST(a_broken_requirement_aborts)
{
    twice(-1);
}
END_TEST

START_TEST(the_refusal_names_file_line_function_and_condition)
{
    int ends[2];
    ck_assert_int_eq(pipe(ends), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(ends[0]);
        dup2(ends[1], STDERR_FILENO);
        twice(-1);
        _exit(0);
    }
    close(ends[1]);
    char said[512] = "";
    size_t length = 0;
    ssize_t got;
    while ((got = read(ends[0], said + length, sizeof said - 1 - length)) > 0)
        length += (size_t)got;
    said[length] = '\0';
    said[strcspn(said, "\n") + (strchr(said, '\n') != NULL)] = '\0';   /* its first line: an */
    close(ends[0]);                                  /* emulator may add one of its own */
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFSIGNALED(status));
    ck_assert_int_eq(WTERMSIG(status), SIGABRT);
    char expected[256];
    snprintf(expected, sizeof expected, "%s:%d: twice: requirement failed: n >= 0\n", __FILE__,
             twice_require_line);
    ck_assert_str_eq(said, expected);
}
END_TEST

Suite *contract_suite(void)
{
    Suite *suite = suite_create("contract");
    TCase *kept = tcase_create("requirements");
    tcase_add_test(kept, a_kept_requirement_returns);
    tcase_add_test(kept, the_refusal_names_file_line_function_and_condition);
    suite_add_tcase(suite, kept);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, a_broken_requirement_aborts, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
