/* Tests of the timer module (chapter 1): monotonic, and it measures a known sleep. */
#include <check.h>
#include <time.h>
#include "timer.h"

START_TEST(time_never_goes_back_and_measures_a_sleep)
{
    double previous = timer_seconds();
    for (int k = 0; k < 100000; k++) {
        const double now = timer_seconds();
        ck_assert(now >= previous);
        previous = now;
    }
    const struct timespec pause = { 0, 20000000 };  /* 20 ms */
    const double start = timer_seconds();
    nanosleep(&pause, NULL);
    const double elapsed = timer_seconds() - start;
    ck_assert_double_ge(elapsed, 0.019);
    ck_assert_double_lt(elapsed, 2.0);
}
END_TEST

Suite *timer_suite(void)
{
    Suite *suite = suite_create("timer");
    TCase *core = tcase_create("monotonic clock");
    tcase_add_test(core, time_never_goes_back_and_measures_a_sleep);
    suite_add_tcase(suite, core);
    return suite;
}
