/* Tests of the softmax module (chapter 1): sums, huge and -inf inputs, the all -inf row, and
 * agreement with a double-precision softmax written the textbook way. */
#include <check.h>
#include <math.h>
#include "rng.h"
#include "softmax.h"

static void reference_softmax(const float *scores, double *p, int n)
{
    double max = -INFINITY, total = 0.0;
    for (int j = 0; j < n; j++) /* not fmax: gcc 12 for aarch64 with SVE crashes on it */
        max = scores[j] > max ? scores[j] : max;
    for (int j = 0; j < n; j++)
        total += p[j] = exp((double)scores[j] - max);
    for (int j = 0; j < n; j++)
        p[j] /= total;
}

START_TEST(rows_sum_to_one_and_match_a_double_reference)
{
    const int lengths[] = { 1, 2, 7, 33, 1000 };
    Rng rng;
    rng_seed(&rng, 5, 1);
    for (int t = 0; t < 5; t++) {
        const int n = lengths[t];
        float row[1000], scores[1000];
        double p[1000], sum = 0.0;
        for (int j = 0; j < n; j++)
            row[j] = scores[j] = (float)(4.0 * rng_normal(&rng));
        softmax_row(row, n);
        reference_softmax(scores, p, n);
        for (int j = 0; j < n; j++) {
            ck_assert(row[j] >= 0.0f);
            ck_assert_double_le(fabs(row[j] - p[j]), 1e-6 * p[j] + 1e-9);
            sum += row[j];
        }
        ck_assert_double_eq_tol(sum, 1.0, 1e-6);
    }
}
END_TEST

START_TEST(huge_scores_give_the_weights_of_their_differences)
{
    float big[3] = { 1000.0f, 999.0f, 998.0f }, small[3] = { 2.0f, 1.0f, 0.0f };
    softmax_row(big, 3);
    softmax_row(small, 3);
    for (int j = 0; j < 3; j++) {
        ck_assert(isfinite(big[j]));
        ck_assert_float_eq_tol(big[j], small[j], 1e-7f);
    }
}
END_TEST

START_TEST(minus_infinity_gets_exactly_zero)
{
    float row[4] = { 1.0f, -INFINITY, 2.0f, -INFINITY };
    softmax_row(row, 4);
    ck_assert(row[1] == 0.0f && row[3] == 0.0f);
    ck_assert_float_eq_tol(row[0], (float)(1.0 / (1.0 + exp(1.0))), 1e-7f);
    ck_assert_float_eq_tol(row[0] + row[2], 1.0f, 1e-7f);
}
END_TEST

START_TEST(a_row_that_is_all_minus_infinity_becomes_zeros_not_nan)
{
    float row[3] = { -INFINITY, -INFINITY, -INFINITY }, single[1] = { -INFINITY };
    softmax_row(row, 3);
    softmax_row(single, 1);
    for (int j = 0; j < 3; j++)
        ck_assert(row[j] == 0.0f);
    ck_assert(single[0] == 0.0f);
}
END_TEST

START_TEST(softmax_rows_treats_each_row_alone)
{
    Matrix m = matrix_new(3, 4);
    const float values[12] = { 0, 1, 2, 3, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                               5, 5, 5, 5 };
    for (int k = 0; k < 12; k++)
        m.data[k] = values[k];
    softmax_rows(m);
    float first[4] = { 0, 1, 2, 3 };
    softmax_row(first, 4);
    for (int j = 0; j < 4; j++) {
        ck_assert(AT(m, 0, j) == first[j]);
        ck_assert(AT(m, 1, j) == 0.0f);
        ck_assert_float_eq_tol(AT(m, 2, j), 0.25f, 1e-7f);
    }
    matrix_free(&m);
}
END_TEST

Suite *softmax_suite(void)
{
    Suite *suite = suite_create("softmax");
    TCase *core = tcase_create("stable softmax");
    tcase_add_test(core, rows_sum_to_one_and_match_a_double_reference);
    tcase_add_test(core, huge_scores_give_the_weights_of_their_differences);
    tcase_add_test(core, minus_infinity_gets_exactly_zero);
    tcase_add_test(core, a_row_that_is_all_minus_infinity_becomes_zeros_not_nan);
    tcase_add_test(core, softmax_rows_treats_each_row_alone);
    suite_add_tcase(suite, core);
    return suite;
}
