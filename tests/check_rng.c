/* Tests of the rng module (chapter 1): PCG32 against its published outputs, reproducibility,
 * and the moments of the uniform and normal samples against statistical bounds. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include "rng.h"

START_TEST(matches_the_published_pcg32_outputs)
{
    /* pcg32-demo from the PCG reference code, seed 42, stream 54 */
    const uint32_t expected[6] = { 0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                   0x83d2f293u, 0xbfa4784bu, 0xcbed606eu };
    Rng rng;
    rng_seed(&rng, 42, 54);
    for (int k = 0; k < 6; k++)
        ck_assert_uint_eq(rng_next(&rng), expected[k]);
}
END_TEST

START_TEST(same_seed_same_numbers_other_seed_other_numbers)
{
    Rng a, b, c;
    rng_seed(&a, 7, 1);
    rng_seed(&b, 7, 1);
    rng_seed(&c, 8, 1);
    int differ = 0;
    for (int k = 0; k < 1000; k++) {
        const double x = rng_normal(&a);
        ck_assert(x == rng_normal(&b));
        differ += x != rng_normal(&c);
    }
    ck_assert_int_gt(differ, 990);
}
END_TEST

START_TEST(uniform_samples_lie_in_the_unit_interval_with_mean_one_half)
{
    Rng rng;
    rng_seed(&rng, 3, 1);
    const int n = 200000;
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
        const double u = rng_uniform(&rng);
        ck_assert(u >= 0.0 && u < 1.0);
        sum += u;
    }
    /* the mean of n uniforms has standard error sqrt(1/12n); allow five of them */
    ck_assert_double_le(fabs(sum / n - 0.5), 5.0 * sqrt(1.0 / (12.0 * n)));
}
END_TEST

START_TEST(normal_moments_are_within_five_standard_errors)
{
    Rng rng;
    rng_seed(&rng, (uint64_t)_i + 1, 1);
    const int n = 400000;
    double sum = 0.0, squares = 0.0, fourth = 0.0;
    for (int k = 0; k < n; k++) {
        const double x = rng_normal(&rng);
        sum += x;
        squares += x * x;
        fourth += x * x * x * x;
    }
    ck_assert_double_le(fabs(sum / n), 5.0 / sqrt(n));
    ck_assert_double_le(fabs(squares / n - 1.0), 5.0 * sqrt(2.0 / n));
    /* the fourth moment of a standard normal is 3, its variance 96 */
    ck_assert_double_le(fabs(fourth / n - 3.0), 5.0 * sqrt(96.0 / n));
}
END_TEST

START_TEST(below_is_in_range_and_covers_every_value)
{
    Rng rng;
    rng_seed(&rng, 11, 3);
    int counts[7] = { 0 };
    for (int k = 0; k < 70000; k++) {
        const uint32_t v = rng_below(&rng, 7);
        ck_assert_uint_lt(v, 7);
        counts[v]++;
    }
    /* each count is binomial(70000, 1/7): mean 10000, standard deviation about 93 */
    for (int v = 0; v < 7; v++)
        ck_assert_int_lt(abs(counts[v] - 10000), 500);
}
END_TEST

Suite *rng_suite(void)
{
    Suite *suite = suite_create("rng");
    TCase *core = tcase_create("pcg32");
    tcase_add_test(core, matches_the_published_pcg32_outputs);
    tcase_add_test(core, same_seed_same_numbers_other_seed_other_numbers);
    tcase_add_test(core, uniform_samples_lie_in_the_unit_interval_with_mean_one_half);
    tcase_add_loop_test(core, normal_moments_are_within_five_standard_errors, 0, 3);
    tcase_add_test(core, below_is_in_range_and_covers_every_value);
    suite_add_tcase(suite, core);
    return suite;
}
