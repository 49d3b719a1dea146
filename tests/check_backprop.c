/* Tests of the backprop module (chapter 9): the softmax's backward step against the full
 * Jacobian, the double-precision softmax and products against obvious versions, the double
 * multi-head layer against chapter 5's float one, its backward pass against central
 * differences on odd shapes, and the causal layer sending no gradient from a loss on early
 * outputs to later inputs. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include "backprop.h"
#include "mask.h"
#include "multihead.h"
#include "scaling.h"
#include "softmax.h"
#include "refusal.h"

START_TEST(softmax_backward_matches_the_full_jacobian)
{
    Rng rng;
    rng_seed(&rng, 21, 1);
    for (int n = 1; n <= 9; n++)
        for (int trial = 0; trial < 4; trial++) {
            double a[9], d_a[9], d_s[9];
            for (int j = 0; j < n; j++) {
                /* trials 2 and 3 mask every other score, as a causal mask would */
                a[j] = trial >= 2 && j % 2 == 1 ? -INFINITY : 3.0 * rng_normal(&rng);
                d_a[j] = rng_normal(&rng);
            }
            softmax64_row(a, n);
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

START_TEST(softmax_backward_ignores_a_constant_added_to_the_gradient)
{
    double a[5] = { 0.5, -1.0, 2.0, 0.0, 1.0 }, d_a[5] = { 1, -2, 3, 0.5, -1 }, shifted[5];
    double d_s[5], d_s_shifted[5], total = 0.0;
    softmax64_row(a, 5);
    for (int j = 0; j < 5; j++)
        shifted[j] = d_a[j] + 7.0;
    softmax_backward(a, d_a, d_s, 5);
    softmax_backward(a, shifted, d_s_shifted, 5);
    for (int j = 0; j < 5; j++) {
        ck_assert_double_eq_tol(d_s[j], d_s_shifted[j], 1e-14);
        total += d_s[j];
    }
    ck_assert_double_eq_tol(total, 0.0, 1e-14);  /* the weights always sum to one */
}
END_TEST

START_TEST(softmax_backward_agrees_with_chapter_four)
{
    /* the same formula as scaling_softmax_backward, in double: equal to float rounding */
    float row[7] = { 0.3f, -1.2f, 2.0f, 0.0f, -INFINITY, 1.1f, -0.4f };
    float grad[7] = { 1.0f, -0.5f, 0.25f, 2.0f, 3.0f, -1.5f, 0.75f }, grad_s_float[7];
    softmax_row(row, 7);
    scaling_softmax_backward(row, grad, 7, grad_s_float);
    double a[7], d_a[7], d_s[7];
    for (int j = 0; j < 7; j++) {
        a[j] = row[j];
        d_a[j] = grad[j];
    }
    softmax_backward(a, d_a, d_s, 7);
    for (int j = 0; j < 7; j++)
        ck_assert_double_eq_tol(d_s[j], grad_s_float[j], 1e-6);
    ck_assert(d_s[4] == 0.0);
}
END_TEST

START_TEST(double_softmax_matches_chapter_one)
{
    Rng rng;
    rng_seed(&rng, 22, 1);
    float row32[33];
    double row[33];
    for (int j = 0; j < 33; j++)
        row[j] = row32[j] = (float)(5.0 * rng_normal(&rng));
    row[4] = row32[4] = -INFINITY;
    softmax_row(row32, 33);
    softmax64_row(row, 33);
    double sum = 0.0;
    for (int j = 0; j < 33; j++) {
        ck_assert_double_le(fabs(row[j] - row32[j]), 1e-6 * row[j] + 1e-9);
        sum += row[j];
    }
    ck_assert(row[4] == 0.0);
    ck_assert_double_eq_tol(sum, 1.0, 1e-14);
    double empty[3] = { -INFINITY, -INFINITY, -INFINITY };
    softmax64_row(empty, 3);
    ck_assert(empty[0] == 0.0 && empty[1] == 0.0 && empty[2] == 0.0);
}
END_TEST

START_TEST(products_match_a_triple_loop)
{
    const int m = 5, k = 7, n = 3;
    Rng rng;
    rng_seed(&rng, 23, 1);
    Matrix64 a = matrix64_new(m, k), b = matrix64_new(k, n), c = matrix64_new(m, n);
    Matrix64 at_b = matrix64_new(k, n), a_bt = matrix64_new(m, k), b2 = matrix64_new(m, n);
    Matrix64 all[] = { a, b, c, at_b, a_bt, b2 };
    for (int x = 0; x < 6; x++)
        for (int e = 0; e < all[x].rows * all[x].cols; e++)
            all[x].data[e] = rng_normal(&rng);
    const double start_at_b = AT(at_b, 2, 1), start_a_bt = AT(a_bt, 4, 6);
    matrix64_multiply(a, b, c);
    matrix64_add_at_b(a, c, at_b);          /* k x n += (m x k)^T (m x n) */
    matrix64_add_a_bt(c, b, a_bt);          /* m x k += (m x n) (k x n)^T */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int p = 0; p < k; p++)
                sum += AT(a, i, p) * AT(b, p, j);
            ck_assert_double_eq_tol(AT(c, i, j), sum, 1e-13);
        }
    double sum = start_at_b, sum2 = start_a_bt;
    for (int p = 0; p < m; p++)
        sum += AT(a, p, 2) * AT(c, p, 1);
    for (int p = 0; p < n; p++)
        sum2 += AT(c, 4, p) * AT(b, 6, p);
    ck_assert_double_eq_tol(AT(at_b, 2, 1), sum, 1e-13);
    ck_assert_double_eq_tol(AT(a_bt, 4, 6), sum2, 1e-13);
    for (int x = 0; x < 6; x++)
        matrix64_free(&all[x]);
}
END_TEST

START_TEST(relative_difference_of_matrices)
{
    const double g[3] = { 1.0, -4.0, 0.001 }, h[3] = { 1.0, -4.0, 0.002 }, zero[3] = { 0 };
    ck_assert_double_eq_tol(relative_difference(g, h, 3), 0.001 / 4.0, 1e-15);
    ck_assert_double_eq_tol(relative_difference(&g[2], &h[2], 1), 0.5, 1e-15);
    ck_assert(relative_difference(zero, zero, 3) == 0.0);
    ck_assert(relative_difference(g, g, 3) == 0.0);
}
END_TEST

/* Odd shapes: length, d_model, heads. */
static const int shapes[][3] = { { 5, 6, 3 }, { 7, 9, 3 }, { 3, 4, 1 }, { 6, 8, 4 }, { 1, 2, 2 } };
enum { SHAPES = sizeof shapes / sizeof shapes[0] };

START_TEST(double_layer_matches_chapter_five)
{
    for (int s = 0; s < SHAPES; s++)
        for (int variant = 0; variant < 4; variant++) {
            const int length = shapes[s][0], d = shapes[s][1], heads = shapes[s][2];
            const bool scale = variant & 1, causal = variant & 2;
            Rng rng;
            rng_seed(&rng, 24, (uint64_t)(10 * s + variant));
            MultiHead layer = multihead_new(d, heads, &rng);
            MultiHead64 exact = multihead64_from(&layer);
            Matrix x = matrix_new(length, d), weights = matrix_new(heads * length, length),
                   y = matrix_new(length, d);
            matrix_fill_normal(x, &rng, 1.0f);
            Matrix64 x64 = matrix64_new(length, d), y64 = matrix64_new(length, d);
            matrix64_from(x, x64);
            MultiHead64Trace trace = multihead64_trace_new(&exact, length);
            multihead_forward(&layer, x, scale, causal ? mask_causal : NULL, weights, y);
            multihead64_forward(&exact, x64, scale, causal, &trace, y64);
            for (int e = 0; e < length * d; e++)
                ck_assert_double_le(fabs(y.data[e] - y64.data[e]), 1e-5 * (1 + fabs(y64.data[e])));
            for (int e = 0; e < heads * length * length; e++)
                ck_assert_double_le(fabs(weights.data[e] - trace.weights.data[e]), 1e-6);
            multihead64_trace_free(&trace);
            matrix64_free(&x64);
            matrix64_free(&y64);
            matrix_free(&x);
            matrix_free(&weights);
            matrix_free(&y);
            multihead64_free(&exact);
            multihead_free(&layer);
        }
}
END_TEST

typedef struct {
    MultiHead64 layer;
    Matrix64 x, g;
    bool scale, causal;
} Case;

static double case_loss(const Case *c)
{
    MultiHead64Trace t = multihead64_trace_new(&c->layer, c->x.rows);
    Matrix64 y = matrix64_new(c->x.rows, c->layer.d_model);
    multihead64_forward(&c->layer, c->x, c->scale, c->causal, &t, y);
    double loss = 0.0;
    for (int e = 0; e < y.rows * y.cols; e++)
        loss += c->g.data[e] * y.data[e];
    matrix64_free(&y);
    multihead64_trace_free(&t);
    return loss;
}

START_TEST(layer_gradient_matches_central_differences)
{
    for (int s = 0; s < SHAPES; s++)
        for (int variant = 0; variant < 4; variant++) {
            const int length = shapes[s][0], d = shapes[s][1], heads = shapes[s][2];
            Rng rng;
            rng_seed(&rng, 25, (uint64_t)(10 * s + variant));
            MultiHead layer = multihead_new(d, heads, &rng);
            Case c = { multihead64_from(&layer), matrix64_new(length, d), matrix64_new(length, d),
                       variant & 1, variant & 2 };
            for (int e = 0; e < length * d; e++) {
                c.x.data[e] = rng_normal(&rng);
                c.g.data[e] = rng_normal(&rng);
            }
            MultiHead64Trace trace = multihead64_trace_new(&c.layer, length);
            Matrix64 y = matrix64_new(length, d), d_x = matrix64_new(length, d);
            MultiHead64 grad = multihead64_new(d, heads);
            multihead64_forward(&c.layer, c.x, c.scale, c.causal, &trace, y);
            multihead64_backward(&c.layer, c.x, c.scale, &trace, c.g, &grad, d_x);
            Matrix64 params[5] = { c.x, c.layer.w_query, c.layer.w_key, c.layer.w_value,
                                   c.layer.w_out };
            Matrix64 grads[5] = { d_x, grad.w_query, grad.w_key, grad.w_value, grad.w_out };
            for (int w = 0; w < 5; w++) {
                const int size = params[w].rows * params[w].cols;
                Matrix64 numeric = matrix64_new(1, size);
                for (int e = 0; e < size; e++) {
                    const double saved = params[w].data[e];
                    params[w].data[e] = saved + 1e-5;
                    const double up = case_loss(&c);
                    params[w].data[e] = saved - 1e-5;
                    const double down = case_loss(&c);
                    params[w].data[e] = saved;
                    numeric.data[e] = (up - down) / 2e-5;
                }
                ck_assert_double_le(relative_difference(numeric.data, grads[w].data, size), 1e-5);
                matrix64_free(&numeric);
            }
            multihead64_trace_free(&trace);
            multihead64_free(&grad);
            matrix64_free(&y);
            matrix64_free(&d_x);
            matrix64_free(&c.x);
            matrix64_free(&c.g);
            multihead64_free(&c.layer);
            multihead_free(&layer);
        }
}
END_TEST

/* With the causal mask, output i depends on inputs 0..i only, so a loss on the first three
 * outputs sends exactly no gradient to the later inputs. */
START_TEST(causal_layer_sends_no_gradient_to_later_inputs)
{
    const int length = 7, d = 6, heads = 2, seen = 3;
    Rng rng;
    rng_seed(&rng, 26, 1);
    MultiHead layer = multihead_new(d, heads, &rng);
    MultiHead64 exact = multihead64_from(&layer), grad = multihead64_new(d, heads);
    Matrix64 x = matrix64_new(length, d), g = matrix64_new(length, d), y = matrix64_new(length, d),
             d_x = matrix64_new(length, d);
    for (int e = 0; e < length * d; e++) {
        x.data[e] = rng_normal(&rng);
        AT(g, e / d, e % d) = e / d < seen ? rng_normal(&rng) : 0.0;
    }
    MultiHead64Trace trace = multihead64_trace_new(&exact, length);
    multihead64_forward(&exact, x, true, true, &trace, y);
    multihead64_backward(&exact, x, true, &trace, g, &grad, d_x);
    double earlier = 0.0;
    for (int t = 0; t < length; t++)
        for (int c = 0; c < d; c++) {
            if (t >= seen)
                ck_assert(AT(d_x, t, c) == 0.0);
            else
                earlier = fmax(earlier, fabs(AT(d_x, t, c)));
        }
    ck_assert_double_gt(earlier, 1e-3);
    multihead64_trace_free(&trace);
    Matrix64 *all[] = { &x, &g, &y, &d_x };
    for (int a = 0; a < 4; a++)
        matrix64_free(all[a]);
    multihead64_free(&exact);
    multihead64_free(&grad);
    multihead_free(&layer);
}
END_TEST

START_TEST(product64_refuses_shapes_that_do_not_chain)
{
    Matrix64 a = matrix64_new(2, 3), b = matrix64_new(4, 2), c = matrix64_new(2, 2);
    matrix64_multiply(a, b, c);
    matrix64_free(&a);
    matrix64_free(&b);
    matrix64_free(&c);
}
END_TEST

START_TEST(multihead64_refuses_heads_that_split_the_width_unevenly)
{
    MultiHead64 m = multihead64_new(6, 4);
    multihead64_free(&m);
}
END_TEST

START_TEST(softmax_backward_refuses_missing_vectors)
{
    softmax_backward(NULL, NULL, NULL, 3);
}
END_TEST

Suite *backprop_suite(void)
{
    Suite *suite = suite_create("backprop");
    TCase *softmax = tcase_create("the softmax backward");
    tcase_add_test(softmax, softmax_backward_matches_the_full_jacobian);
    tcase_add_test(softmax, softmax_backward_ignores_a_constant_added_to_the_gradient);
    tcase_add_test(softmax, softmax_backward_agrees_with_chapter_four);
    tcase_add_test(softmax, double_softmax_matches_chapter_one);
    suite_add_tcase(suite, softmax);
    TCase *matrices = tcase_create("double-precision matrices");
    tcase_add_test(matrices, products_match_a_triple_loop);
    tcase_add_test(matrices, relative_difference_of_matrices);
    suite_add_tcase(suite, matrices);
    TCase *layer = tcase_create("the multi-head layer");
    tcase_add_test(layer, double_layer_matches_chapter_five);
    tcase_add_test(layer, layer_gradient_matches_central_differences);
    tcase_add_test(layer, causal_layer_sends_no_gradient_to_later_inputs);
    suite_add_tcase(suite, layer);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, product64_refuses_shapes_that_do_not_chain, SIGABRT);
    tcase_add_test_raise_signal(refused, multihead64_refuses_heads_that_split_the_width_unevenly, SIGABRT);
    tcase_add_test_raise_signal(refused, softmax_backward_refuses_missing_vectors, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
