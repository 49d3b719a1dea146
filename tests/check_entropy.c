/* Tests of the entropy module (chapter 6): a uniform row of length m has entropy ln m, a one-hot
 * row 0; the entropy agrees with the log-sum-exp form; every causal row lies in [0, ln(i + 1)];
 * the means, the causal ceiling ln(T!)/T and the fraction that leaves row 0 out; the text bar. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "attention.h"
#include "entropy.h"
#include "mask.h"
#include "rng.h"
#include "softmax.h"
#include "refusal.h"

START_TEST(uniform_row_has_entropy_ln_m)
{
    float p[64];
    for (int m = 1; m <= 64; m++) {
        for (int j = 0; j < m; j++)
            p[j] = 1.0f / (float)m;
        ck_assert_double_eq_tol(entropy_row(p, m), log((double)m), 1e-6);
    }
}
END_TEST

START_TEST(one_hot_row_has_entropy_zero)
{
    float p[9];
    for (int n = 1; n <= 9; n++)
        for (int hot = 0; hot < n; hot++) {
            for (int j = 0; j < n; j++)
                p[j] = j == hot ? 1.0f : 0.0f;
            ck_assert(entropy_row(p, n) == 0.0);
        }
    ck_assert(entropy_row(NULL, 0) == 0.0);
}
END_TEST

/* For p = softmax(s): H = ln sum_k exp(s_k) - sum_j p_j s_j, computed here from s in double. */
START_TEST(entropy_matches_log_sum_exp)
{
    Rng rng;
    rng_seed(&rng, 31, 0);
    for (int trial = 0; trial < 200; trial++) {
        const int n = 1 + (int)rng_below(&rng, 40);
        const double spread = 0.1 + 5.0 * rng_uniform(&rng);
        double s[40], max = -INFINITY, total = 0.0, weighted = 0.0;
        float p[40];
        for (int j = 0; j < n; j++) {
            s[j] = spread * rng_normal(&rng);
            p[j] = (float)s[j];
            max = fmax(max, s[j]);
        }
        softmax_row(p, n);
        for (int j = 0; j < n; j++)
            total += exp(s[j] - max);
        for (int j = 0; j < n; j++)
            weighted += exp(s[j] - max) / total * s[j];
        const double expected = max + log(total) - weighted;
        ck_assert_double_eq_tol(entropy_row(p, n), expected, 2e-5);
    }
}
END_TEST

/* Random causal patterns, from flat to nearly one-hot: row i lies in [0, ln(i + 1)]. */
START_TEST(every_causal_row_lies_between_zero_and_ln_i_plus_one)
{
    enum { T = 12, D = 8 };
    const double spreads[4] = { 0.0, 0.3, 3.0, 300.0 };
    Rng rng;
    rng_seed(&rng, 32, 0);
    Matrix q = matrix_new(T, D), k = matrix_new(T, D), v = matrix_new(T, D);
    Matrix weights = matrix_new(T, T), output = matrix_new(T, D);
    double entropy[T];
    for (int t = 0; t < 4; t++) {
        matrix_fill_normal(q, &rng, (float)spreads[t]);
        matrix_fill_normal(k, &rng, 1.0f);
        attend(q, k, v, false, mask_causal, NULL, weights, output);
        entropy_rows(weights, entropy);
        ck_assert(entropy[0] == 0.0);
        for (int i = 0; i < T; i++) {
            ck_assert_double_ge(entropy[i], -1e-7);
            ck_assert_double_le(entropy[i], log(i + 1.0) + 1e-6);
            ck_assert_double_eq(entropy[i], entropy_row(&AT(weights, i, 0), T));
        }
    }
    Matrix *all[] = { &q, &k, &v, &weights, &output };
    for (int a = 0; a < 5; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(uniform_causal_attention_reaches_the_ceiling)
{
    enum { T = 8 };
    Matrix zeros = matrix_new(T, 3), weights = matrix_new(T, T), output = matrix_new(T, 3);
    attend(zeros, zeros, zeros, true, mask_causal, NULL, weights, output);
    double entropy[T];
    entropy_rows(weights, entropy);
    for (int i = 0; i < T; i++)
        ck_assert_double_eq_tol(entropy[i], log(i + 1.0), 1e-6);
    ck_assert_double_eq_tol(entropy_causal_ceiling(T), lgamma(T + 1.0) / T, 1e-12);
    ck_assert_double_eq_tol(entropy_mean(weights), entropy_causal_ceiling(T), 1e-6);
    ck_assert_double_eq_tol(entropy_causal_fraction(weights), 1.0, 1e-6);
    ck_assert_double_lt(entropy_causal_ceiling(T), log((double)T));
    matrix_free(&zeros);
    matrix_free(&weights);
    matrix_free(&output);
}
END_TEST

/* The mean counts row 0 as a 0; the fraction leaves it out. */
START_TEST(the_mean_counts_row_zero_and_the_fraction_does_not)
{
    enum { T = 5 };
    Matrix w = matrix_new(T, T);
    AT(w, 0, 0) = 1.0f;
    for (int i = 1; i < T; i++)                /* rows 1..T-1: uniform over the last two */
        AT(w, i, i - 1) = AT(w, i, i) = 0.5f;
    ck_assert_double_eq_tol(entropy_mean(w), log(2.0) * (T - 1) / T, 1e-7);
    double fraction = 0.0;
    for (int i = 1; i < T; i++)
        fraction += log(2.0) / log(i + 1.0);
    ck_assert_double_eq_tol(entropy_causal_fraction(w), fraction / (T - 1), 1e-7);
    matrix_fill(w, 0.0f);
    for (int i = 0; i < T; i++)                /* a previous-token head */
        AT(w, i, i > 0 ? i - 1 : 0) = 1.0f;
    ck_assert(entropy_mean(w) == 0.0 && entropy_causal_fraction(w) == 0.0);
    matrix_free(&w);
}
END_TEST

START_TEST(the_bar_scales_to_its_width_and_marks_the_ceiling)
{
    char bar[21];
    entropy_bar(2.0, 2.0, 1.0, 20, bar);
    ck_assert_str_eq(bar, "####################");
    entropy_bar(0.0, 2.0, 1.0, 20, bar);
    ck_assert_str_eq(bar, "          |         ");
    entropy_bar(0.55, 2.0, 1.3, 20, bar);
    ck_assert_str_eq(bar, "#####        |      ");
    entropy_bar(9.0, 2.0, -1.0, 20, bar);      /* out of range: clamped */
    ck_assert_int_eq((int)strlen(bar), 20);
    ck_assert_int_eq((int)strspn(bar, "#"), 20);
}
END_TEST

START_TEST(entropy_refuses_a_negative_length)
{
    const float p[1] = { 1.0f };
    ck_assert(entropy_row(p, -1) >= 0.0);
}
END_TEST

Suite *entropy_suite(void)
{
    Suite *suite = suite_create("entropy");
    TCase *row = tcase_create("entropy of a row");
    tcase_add_test(row, uniform_row_has_entropy_ln_m);
    tcase_add_test(row, one_hot_row_has_entropy_zero);
    tcase_add_test(row, entropy_matches_log_sum_exp);
    tcase_add_test(row, every_causal_row_lies_between_zero_and_ln_i_plus_one);
    suite_add_tcase(suite, row);
    TCase *heads = tcase_create("means and ceilings");
    tcase_add_test(heads, uniform_causal_attention_reaches_the_ceiling);
    tcase_add_test(heads, the_mean_counts_row_zero_and_the_fraction_does_not);
    tcase_add_test(heads, the_bar_scales_to_its_width_and_marks_the_ceiling);
    suite_add_tcase(suite, heads);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, entropy_refuses_a_negative_length, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
