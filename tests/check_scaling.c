/* Tests of the scaling module (chapter 4): the variance estimator and the sampled variance of
 * q.k against closed forms; the book's one softmax backward step (chapter 9's training uses it
 * too) against finite differences and the full Jacobian, with masked weights, shifted
 * gradients, and the mean of its squared norm against the Jacobian's Frobenius norm; and the
 * saturation statistics at their limits, on shared rows, and as d grows. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "rng.h"
#include "scaling.h"
#include "refusal.h"

START_TEST(sample_variance_matches_closed_forms)
{
    enum { N = 1001 };
    static double x[N], shifted[N], constant[N];
    for (int k = 0; k < N; k++) {
        x[k] = k + 1;
        shifted[k] = 1e8 + k + 1;     /* a large mean: the one-pass formula loses digits */
        constant[k] = 3.25;
    }
    const double expected = N * (N + 1.0) / 12.0;   /* variance of 1, 2, ..., N */
    ck_assert_double_eq_tol(scaling_sample_variance(x, N), expected, 1e-9 * expected);
    ck_assert_double_eq_tol(scaling_sample_variance(shifted, N), expected, 1e-9 * expected);
    ck_assert_double_eq(scaling_sample_variance(constant, N), 0.0);
    const double pair[2] = { -1.0, 1.0 };
    ck_assert_double_eq(scaling_sample_variance(pair, 2), 2.0);
}
END_TEST

/* compare_doubles (shared with chapter 7) orders by comparing, not subtracting: a difference
 * far below 1 still orders, and qsort with it sorts. */
START_TEST(compare_doubles_orders_small_differences)
{
    const double one = 1.0, near = 1.0 + 1e-12, minus = -2.5;
    ck_assert_int_eq(compare_doubles(&one, &near), -1);
    ck_assert_int_eq(compare_doubles(&near, &one), 1);
    ck_assert_int_eq(compare_doubles(&one, &one), 0);
    double values[5] = { 3.0, near, minus, one, 0.25 };
    qsort(values, 5, sizeof *values, compare_doubles);
    for (int i = 1; i < 5; i++)
        ck_assert(values[i - 1] <= values[i]);
    ck_assert(values[0] == minus && values[2] == one && values[3] == near);
}
END_TEST

START_TEST(dot_variance_is_d_within_four_standard_errors)
{
    const int dims[] = { 1, 3, 16, 100 }, samples = 20000;
    for (int t = 0; t < 4; t++) {
        Rng rng;
        rng_seed(&rng, 11, (uint64_t)t);
        const double v = scaling_dot_variance(dims[t], samples, &rng);
        const double error = scaling_dot_variance_error(dims[t], samples);
        ck_assert_double_le(fabs(v - dims[t]), 4.0 * error);
    }
}
END_TEST

/* The closed form sqrt((2 d^2 + 6 d) / N) must match the spread of repeated estimates. */
START_TEST(standard_error_matches_the_spread_of_estimates)
{
    enum { REPEATS = 400, SAMPLES = 200, D = 4 };
    static double estimates[REPEATS];
    Rng rng;
    rng_seed(&rng, 12, 0);
    for (int r = 0; r < REPEATS; r++)
        estimates[r] = scaling_dot_variance(D, SAMPLES, &rng);
    const double spread = sqrt(scaling_sample_variance(estimates, REPEATS));
    const double predicted = scaling_dot_variance_error(D, SAMPLES);
    ck_assert_double_eq_tol(predicted, sqrt((2.0 * D * D + 6.0 * D) / SAMPLES), 1e-12);
    ck_assert_double_le(fabs(spread / predicted - 1.0), 0.15);
}
END_TEST

static void softmax_double(const double *s, double *p, int n)
{
    double max = -INFINITY, total = 0.0;
    for (int j = 0; j < n; j++)
        max = fmax(max, s[j]);
    for (int j = 0; j < n; j++)
        total += p[j] = exp(s[j] - max);
    for (int j = 0; j < n; j++)
        p[j] /= total;
}

/* L(s) = sum_j g_j softmax(s)_j, differentiated by central differences. */
START_TEST(backward_matches_finite_differences)
{
    Rng rng;
    rng_seed(&rng, 13, 0);
    for (int n = 1; n <= 9; n++) {
        double s[9], p[9], g[9], d_s[9];
        for (int j = 0; j < n; j++) {
            s[j] = 2.0 * rng_normal(&rng);
            g[j] = rng_normal(&rng);
        }
        softmax_double(s, p, n);
        softmax_backward(p, g, d_s, n);
        for (int k = 0; k < n; k++) {
            const double h = 1e-4, saved = s[k];
            double plus = 0.0, minus = 0.0;
            s[k] = saved + h;
            softmax_double(s, p, n);
            for (int j = 0; j < n; j++)
                plus += g[j] * p[j];
            s[k] = saved - h;
            softmax_double(s, p, n);
            for (int j = 0; j < n; j++)
                minus += g[j] * p[j];
            s[k] = saved;
            ck_assert_double_le(fabs(d_s[k] - (plus - minus) / (2 * h)), 1e-7);
        }
    }
}
END_TEST

START_TEST(a_one_hot_row_passes_back_exactly_zero)
{
    const double p[4] = { 0.0, 0.0, 1.0, 0.0 }, g[4] = { 0.3, -1.7, 2.5, 0.9 };
    double d_s[4] = { 9, 9, 9, 9 };
    softmax_backward(p, g, d_s, 4);
    for (int j = 0; j < 4; j++)
        ck_assert(d_s[j] == 0.0);
}
END_TEST

START_TEST(a_uniform_row_passes_back_the_centred_gradient)
{
    const double g[5] = { 1.0, -2.0, 0.5, 3.0, -0.25 };
    const double p[5] = { 0.2, 0.2, 0.2, 0.2, 0.2 };
    double d_s[5];
    softmax_backward(p, g, d_s, 5);
    const double mean = (1.0 - 2.0 + 0.5 + 3.0 - 0.25) / 5.0;
    for (int j = 0; j < 5; j++)
        ck_assert_double_eq_tol(d_s[j], (g[j] - mean) / 5.0, 1e-15);
}
END_TEST

/* The O(n) formula against the product by the n x n Jacobian diag(a) - a a^T, on rows of
 * every length from 1 to 9, half of them with every other score masked. */
START_TEST(backward_matches_the_full_jacobian)
{
    Rng rng;
    rng_seed(&rng, 21, 1);
    for (int n = 1; n <= 9; n++)
        for (int trial = 0; trial < 4; trial++) {
            double s[9], a[9], d_a[9], d_s[9];
            for (int j = 0; j < n; j++) {
                /* trials 2 and 3 mask every other score, as a causal mask would */
                s[j] = trial >= 2 && j % 2 == 1 ? -INFINITY : 3.0 * rng_normal(&rng);
                d_a[j] = rng_normal(&rng);
            }
            softmax_double(s, a, n);
            softmax_backward(a, d_a, d_s, n);
            for (int j = 0; j < n; j++) {
                double expected = 0.0, size = fabs(d_a[j]);
                for (int i = 0; i < n; i++) {
                    const double jacobian = a[i] * ((i == j ? 1.0 : 0.0) - a[j]);
                    expected += jacobian * d_a[i];
                    size += a[i] * fabs(d_a[i]);
                }
                size *= a[j];   /* the scale of the terms either way of computing it */
                ck_assert_double_le(fabs(d_s[j] - expected), 1e-14 * size + 1e-300);
                if (a[j] == 0.0)
                    ck_assert(d_s[j] == 0.0);
            }
        }
}
END_TEST

/* The weights sum to one, so a constant added to every d_a changes nothing, and the
 * gradient of the scores sums to zero. */
START_TEST(backward_ignores_a_constant_added_to_the_gradient)
{
    const double s[5] = { 0.5, -1.0, 2.0, 0.0, 1.0 }, d_a[5] = { 1, -2, 3, 0.5, -1 };
    double a[5], shifted[5], d_s[5], d_s_shifted[5], total = 0.0;
    softmax_double(s, a, 5);
    for (int j = 0; j < 5; j++)
        shifted[j] = d_a[j] + 7.0;
    softmax_backward(a, d_a, d_s, 5);
    softmax_backward(a, shifted, d_s_shifted, 5);
    for (int j = 0; j < 5; j++) {
        ck_assert_double_eq_tol(d_s[j], d_s_shifted[j], 1e-14);
        total += d_s[j];
    }
    ck_assert_double_eq_tol(total, 0.0, 1e-14);
}
END_TEST

/* A masked score (weight exactly 0) gets exactly 0, and the keys that remain get exactly
 * what the row without the masked keys gives them: no gradient flows into the future, and
 * the future changes nothing. */
START_TEST(masked_weights_leave_the_other_gradients_as_they_were)
{
    Rng rng;
    rng_seed(&rng, 18, 0);
    double s[8], a[8], d_a[8], d_s[8], s_kept[8], a_kept[8], d_a_kept[8], d_s_kept[8];
    int kept = 0;
    for (int j = 0; j < 8; j++) {
        const int masked = j % 3 == 2;
        s[j] = masked ? -INFINITY : 2.0 * rng_normal(&rng);
        d_a[j] = rng_normal(&rng);
        if (!masked)
            s_kept[kept] = s[j], d_a_kept[kept++] = d_a[j];
    }
    softmax_double(s, a, 8);
    softmax_double(s_kept, a_kept, kept);
    softmax_backward(a, d_a, d_s, 8);
    softmax_backward(a_kept, d_a_kept, d_s_kept, kept);
    for (int j = 0, k = 0; j < 8; j++)
        if (j % 3 == 2)
            ck_assert(a[j] == 0.0 && d_s[j] == 0.0);
        else
            ck_assert(d_s[j] == d_s_kept[k++]);
}
END_TEST

/* The chapter's claim: for g with independent standard normal entries the mean of |J g|^2 is
 * the squared Frobenius norm of the softmax's Jacobian, sum p^2 - 2 sum p^3 + (sum p^2)^2,
 * which is (T - 1) / T^2 for a uniform row. */
START_TEST(mean_squared_gradient_is_the_jacobians_frobenius_norm)
{
    enum { N = 8, DRAWS = 20000 };
    Rng rng;
    rng_seed(&rng, 16, 0);
    for (int trial = 0; trial < 3; trial++) {
        double s[N], p[N], g[N], d_s[N];
        for (int j = 0; j < N; j++)
            s[j] = trial == 0 ? 0.0 : trial * rng_normal(&rng);
        softmax_double(s, p, N);
        double p2 = 0.0, p3 = 0.0;
        for (int j = 0; j < N; j++)
            p2 += p[j] * p[j], p3 += p[j] * p[j] * p[j];
        const double frobenius = p2 - 2.0 * p3 + p2 * p2;
        if (trial == 0)
            ck_assert_double_eq_tol(frobenius, (N - 1.0) / (N * N), 1e-14);
        double mean = 0.0;
        for (int draw = 0; draw < DRAWS; draw++) {
            for (int j = 0; j < N; j++)
                g[j] = rng_normal(&rng);
            softmax_backward(p, g, d_s, N);
            for (int j = 0; j < N; j++)
                mean += d_s[j] * d_s[j] / DRAWS;
        }
        /* |Jg|^2 has relative spread at most sqrt(2), so the mean is within 5 per cent */
        ck_assert_double_le(fabs(mean / frobenius - 1.0), 0.05);
    }
}
END_TEST

START_TEST(saturation_statistics_reach_their_limits)
{
    const double factors[3] = { 0.0, 1.0, 1e4 };
    ScalingStats stats[3];
    Rng rng;
    rng_seed(&rng, 14, 0);
    scaling_saturation(16, 8, 500, factors, 3, &rng, stats);
    /* factor 0: every score is 0 and every row is uniform */
    ck_assert_double_eq_tol(stats[0].top_weight, 0.125, 1e-7);
    ck_assert_double_eq_tol(stats[0].entropy, log(8.0), 1e-6);
    ck_assert_double_ge(stats[0].gradient_median, 0.1);
    /* a huge factor: one-hot rows, whose gradient is exactly 0 */
    ck_assert_double_ge(stats[2].top_weight, 0.998);
    ck_assert_double_le(stats[2].entropy, 0.01);
    ck_assert_double_eq(stats[2].gradient_median, 0.0);
    /* the same rows in between */
    ck_assert(stats[0].entropy > stats[1].entropy && stats[1].entropy > stats[2].entropy);
    ck_assert(stats[0].gradient_median > stats[1].gradient_median);
    ck_assert(stats[1].gradient_median > stats[2].gradient_median);
    ck_assert(stats[1].gradient_median <= stats[1].gradient * 1.5);
}
END_TEST

/* All factors of one call see the same rows, and the rows do not depend on how many factors
 * there are: equal factors give equal statistics, in one call or in two. */
START_TEST(every_factor_sees_the_same_rows)
{
    const double factors[3] = { 0.5, 2.0, 0.5 };
    ScalingStats three[3], one[1];
    Rng rng;
    rng_seed(&rng, 17, 0);
    scaling_saturation(8, 6, 300, factors, 3, &rng, three);
    rng_seed(&rng, 17, 0);
    scaling_saturation(8, 6, 300, factors, 1, &rng, one);
    const ScalingStats *same[2] = { &three[2], &one[0] };
    for (int k = 0; k < 2; k++) {
        ck_assert(same[k]->top_weight == three[0].top_weight);
        ck_assert(same[k]->entropy == three[0].entropy);
        ck_assert(same[k]->gradient == three[0].gradient);
        ck_assert(same[k]->gradient_median == three[0].gradient_median);
    }
    ck_assert(three[1].top_weight > three[0].top_weight);
}
END_TEST

/* The chapter's claim: without the scale rows saturate as d grows; with 1/sqrt(d) they do not. */
START_TEST(only_unscaled_rows_saturate_as_d_grows)
{
    ScalingStats small[2], large[2];
    const double small_factors[2] = { 1.0, 1.0 / 2.0 }, large_factors[2] = { 1.0, 1.0 / 16.0 };
    Rng rng;
    rng_seed(&rng, 15, 0);
    scaling_saturation(4, 8, 2000, small_factors, 2, &rng, small);
    scaling_saturation(256, 8, 2000, large_factors, 2, &rng, large);
    ck_assert_double_ge(large[0].top_weight, 0.9);
    ck_assert_double_ge(large[0].top_weight, small[0].top_weight + 0.3);
    ck_assert_double_le(fabs(large[1].top_weight - small[1].top_weight), 0.05);
    ck_assert_double_le(fabs(large[1].entropy - small[1].entropy), 0.1);
    ck_assert_double_le(large[0].gradient_median, 0.01 * large[1].gradient_median);
}
END_TEST

START_TEST(softmax_backward_refuses_a_negative_length)
{
    const double a[1] = { 1.0 }, d_a[1] = { 1.0 };
    double d_s[1];
    softmax_backward(a, d_a, d_s, -1);
}
END_TEST

START_TEST(softmax_backward_refuses_missing_vectors)
{
    softmax_backward(NULL, NULL, NULL, 3);
}
END_TEST

Suite *scaling_suite(void)
{
    Suite *suite = suite_create("scaling");
    TCase *variance = tcase_create("variance of q.k");
    tcase_add_test(variance, sample_variance_matches_closed_forms);
    tcase_add_test(variance, compare_doubles_orders_small_differences);
    tcase_add_test(variance, dot_variance_is_d_within_four_standard_errors);
    tcase_add_test(variance, standard_error_matches_the_spread_of_estimates);
    suite_add_tcase(suite, variance);
    TCase *backward = tcase_create("softmax backward");
    tcase_add_test(backward, backward_matches_finite_differences);
    tcase_add_test(backward, a_one_hot_row_passes_back_exactly_zero);
    tcase_add_test(backward, a_uniform_row_passes_back_the_centred_gradient);
    tcase_add_test(backward, backward_matches_the_full_jacobian);
    tcase_add_test(backward, backward_ignores_a_constant_added_to_the_gradient);
    tcase_add_test(backward, masked_weights_leave_the_other_gradients_as_they_were);
    tcase_add_test(backward, mean_squared_gradient_is_the_jacobians_frobenius_norm);
    suite_add_tcase(suite, backward);
    TCase *saturation = tcase_create("saturation");
    tcase_add_test(saturation, saturation_statistics_reach_their_limits);
    tcase_add_test(saturation, every_factor_sees_the_same_rows);
    tcase_add_test(saturation, only_unscaled_rows_saturate_as_d_grows);
    suite_add_tcase(suite, saturation);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, softmax_backward_refuses_a_negative_length, SIGABRT);
    tcase_add_test_raise_signal(refused, softmax_backward_refuses_missing_vectors, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
