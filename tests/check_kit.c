/* Tests of the training kit (chapter 9): the double-precision softmax and products against
 * obvious versions (the softmax's backward step is chapter 4's: check_scaling.c tests it),
 * the largest difference and its refusal of unequal shapes, the double multi-head layer
 * against chapter 5's float one, its backward pass against central differences on odd shapes
 * with every option (mask, bias by distance, a turn), the causal layer sending no gradient
 * from a loss on early outputs to later inputs, the initialiser, Adam against its formula,
 * the gradient check finding a wrong gradient, the float build against the double one, a
 * stack of a test mixer against the same computed by hand, and the stack's parameter list. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kit.h"
#include "mask.h"
#include "multihead.h"
#include "softmax.h"
#include "refusal.h"

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
    softmax_row64(row, 33);
    double sum = 0.0;
    for (int j = 0; j < 33; j++) {
        ck_assert_double_le(fabs(row[j] - row32[j]), 1e-6 * row[j] + 1e-9);
        sum += row[j];
    }
    ck_assert(row[4] == 0.0);
    ck_assert_double_eq_tol(sum, 1.0, 1e-14);
    double empty[3] = { -INFINITY, -INFINITY, -INFINITY };
    softmax_row64(empty, 3);
    ck_assert(empty[0] == 0.0 && empty[1] == 0.0 && empty[2] == 0.0);
}
END_TEST

START_TEST(products_match_a_triple_loop)
{
    const int m = 5, k = 7, n = 3;
    Rng rng;
    rng_seed(&rng, 23, 1);
    Matrix64 a = matrix_new64(m, k), b = matrix_new64(k, n), c = matrix_new64(m, n);
    Matrix64 at_b = matrix_new64(k, n), a_bt = matrix_new64(m, k), b2 = matrix_new64(m, n);
    Matrix64 all[] = { a, b, c, at_b, a_bt, b2 };
    for (int x = 0; x < 6; x++)
        for (int e = 0; e < all[x].rows * all[x].cols; e++)
            all[x].data[e] = rng_normal(&rng);
    const double start_at_b = AT(at_b, 2, 1), start_a_bt = AT(a_bt, 4, 6);
    matrix_multiply64(a, b, c);
    matrix_add_at_b64(a, c, at_b);          /* k x n += (m x k)^T (m x n) */
    matrix_add_a_bt64(c, b, a_bt);          /* m x k += (m x n) (k x n)^T */
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
        matrix_free64(&all[x]);
}
END_TEST

/* Widths around every tile (2 vectors of 2, 4 or 8 doubles), one vector and their tails, and
 * heights around every tile (6 or 8 rows, then 2 and 1): all three products, every entry,
 * against triple loops summed in double. */
START_TEST(products_match_triple_loops_across_vector_blocks)
{
    const int widths[] = { 1, 7, 8, 9, 31, 32, 33, 67 }, heights[] = { 1, 2, 3, 6, 7, 8, 9, 17 };
    Rng rng;
    rng_seed(&rng, 23, 2);
    for (int w = 0; w < 64; w++) {
        const int m = heights[w / 8], k = 5, n = widths[w % 8];
        Matrix64 a = matrix_new64(m, k), b = matrix_new64(k, n), c = matrix_new64(m, n),
                 at_b = matrix_new64(k, n), a_bt = matrix_new64(m, k);
        Matrix64 all[] = { a, b, at_b, a_bt };
        for (int x = 0; x < 4; x++)
            for (int e = 0; e < all[x].rows * all[x].cols; e++)
                all[x].data[e] = rng_normal(&rng);
        Matrix64 at_b0 = matrix_new64(k, n), a_bt0 = matrix_new64(m, k);
        memcpy(at_b0.data, at_b.data, sizeof(double) * (size_t)(k * n));
        memcpy(a_bt0.data, a_bt.data, sizeof(double) * (size_t)(m * k));
        matrix_multiply64(a, b, c);
        matrix_add_at_b64(a, c, at_b);
        matrix_add_a_bt64(c, b, a_bt);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double sum = 0.0;
                for (int p = 0; p < k; p++)
                    sum += AT(a, i, p) * AT(b, p, j);
                ck_assert_double_eq_tol(AT(c, i, j), sum, 1e-12);
            }
        for (int i = 0; i < k; i++)
            for (int j = 0; j < n; j++) {
                double sum = AT(at_b0, i, j);
                for (int p = 0; p < m; p++)
                    sum += AT(a, p, i) * AT(c, p, j);
                ck_assert_double_eq_tol(AT(at_b, i, j), sum, 1e-12);
            }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < k; j++) {
                double sum = AT(a_bt0, i, j);
                for (int p = 0; p < n; p++)
                    sum += AT(c, i, p) * AT(b, j, p);
                ck_assert_double_eq_tol(AT(a_bt, i, j), sum, 1e-11);
            }
        Matrix64 *mine[] = { &a, &b, &c, &at_b, &a_bt, &at_b0, &a_bt0 };
        for (int x = 0; x < 7; x++)
            matrix_free64(mine[x]);
    }
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

static LayerOptions64 plain(bool scale, bool causal)
{
    return (LayerOptions64){ scale, causal, { 0, 0, NULL }, { NULL, NULL } };
}

/* A test's turn: pair (2c, 2c+1) of row t turns by the angle 0.3 (t + 1) (c + 1), an
 * orthogonal map whose inverse is the turn by the opposite angle. */
static void test_turn(Matrix64 x, int head_width, bool undo, const void *context)
{
    (void)context;
    for (int t = 0; t < x.rows; t++)
        for (int c = 0; 2 * c + 1 < x.cols; c++) {
            const double angle = (undo ? -0.3 : 0.3) * (t + 1) * (c % (head_width / 2) + 1);
            const double u = AT(x, t, 2 * c), v = AT(x, t, 2 * c + 1);
            AT(x, t, 2 * c) = cos(angle) * u - sin(angle) * v;
            AT(x, t, 2 * c + 1) = sin(angle) * u + cos(angle) * v;
        }
}

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
            MultiHead64 exact = multihead_widen(&layer);
            Matrix x = matrix_new(length, d), weights = matrix_new(heads * length, length),
                   y = matrix_new(length, d);
            matrix_fill_normal(x, &rng, 1.0f);
            Matrix64 x64 = matrix_new64(length, d), y64 = matrix_new64(length, d);
            matrix_widen(x, x64);
            MultiHeadTrace64 trace = multihead_trace_new64(&exact, length, 1);
            multihead_forward(&layer, x, scale, causal ? mask_causal : NULL, NULL, weights, y);
            multihead_forward64(&exact, plain(scale, causal), x64, &trace, y64);
            for (int e = 0; e < length * d; e++)
                ck_assert_double_le(fabs(y.data[e] - y64.data[e]), 1e-5 * (1 + fabs(y64.data[e])));
            for (int e = 0; e < heads * length * length; e++)
                ck_assert_double_le(fabs(weights.data[e] - trace.weights.data[e]), 1e-6);
            multihead_trace_free64(&trace);
            matrix_free64(&x64);
            matrix_free64(&y64);
            matrix_free(&x);
            matrix_free(&weights);
            matrix_free(&y);
            multihead_free64(&exact);
            multihead_free(&layer);
        }
}
END_TEST

/* A batch of three sequences, one under the other, through the layer with a bias by distance:
 * each sequence's output, pattern and input gradient are exactly what it gets alone, and the
 * weights' and the bias's gradients are the sums of the three. */
START_TEST(a_batch_is_its_sequences_alone)
{
    enum { T = 7, D = 8, H = 2, B = 3 };
    Rng rng;
    rng_seed(&rng, 31, 1);
    MultiHead64 m = multihead_new64(D, H), batch_grad = multihead_new64(D, H),
                one_grad = multihead_new64(D, H);
    Matrix64 *w[] = { &m.w_query, &m.w_key, &m.w_value, &m.w_out };
    for (int a = 0; a < 4; a++)
        for (int e = 0; e < D * D; e++)
            w[a]->data[e] = 0.5 * rng_normal(&rng);
    Matrix64 bias = matrix_new64(H, T), x = matrix_new64(B * T, D), g = matrix_new64(B * T, D);
    for (int e = 0; e < H * T; e++)
        bias.data[e] = rng_normal(&rng);
    for (int e = 0; e < B * T * D; e++) {
        x.data[e] = rng_normal(&rng);
        g.data[e] = rng_normal(&rng);
    }
    const LayerOptions64 o = { true, true, bias, { NULL, NULL } };
    MultiHeadTrace64 all = multihead_trace_new64(&m, T, B);
    Matrix64 y = matrix_new64(B * T, D), d_x = matrix_new64(B * T, D),
             d_bias = matrix_new64(H, T), d_bias_one = matrix_new64(H, T);
    multihead_forward64(&m, o, x, &all, y);
    multihead_backward64(&m, o, x, &all, g, &batch_grad, d_bias, d_x);
    for (int b = 0; b < B; b++) {
        const Matrix64 xb = { T, D, &x.data[b * T * D] }, gb = { T, D, &g.data[b * T * D] };
        MultiHeadTrace64 one = multihead_trace_new64(&m, T, 1);
        Matrix64 yb = matrix_new64(T, D), d_xb = matrix_new64(T, D);
        multihead_forward64(&m, o, xb, &one, yb);
        multihead_backward64(&m, o, xb, &one, gb, &one_grad, d_bias_one, d_xb);
        for (int e = 0; e < T * D; e++) {
            ck_assert(yb.data[e] == y.data[b * T * D + e]);
            ck_assert(d_xb.data[e] == d_x.data[b * T * D + e]);
        }
        for (int e = 0; e < H * T * T; e++)
            ck_assert(one.weights.data[e] == all.weights.data[b * H * T * T + e]);
        multihead_trace_free64(&one);
        matrix_free64(&yb);
        matrix_free64(&d_xb);
    }
    const Matrix64 summed[] = { one_grad.w_query, one_grad.w_key, one_grad.w_value,
                                one_grad.w_out, d_bias_one },
                   batched[] = { batch_grad.w_query, batch_grad.w_key, batch_grad.w_value,
                                 batch_grad.w_out, d_bias };
    for (int a = 0; a < 5; a++)
        ck_assert_double_le(matrix64_largest_difference(summed[a], batched[a]), 1e-12);
    Matrix64 *mine[] = { &bias, &x, &g, &y, &d_x, &d_bias, &d_bias_one };
    for (int a = 0; a < 7; a++)
        matrix_free64(mine[a]);
    multihead_trace_free64(&all);
    multihead_free64(&m);
    multihead_free64(&batch_grad);
    multihead_free64(&one_grad);
}
END_TEST

typedef struct {
    MultiHead64 layer;
    Matrix64 x, g;
    LayerOptions64 options;
} Case;

static double case_loss(void *lc)
{
    const Case *c = lc;
    MultiHeadTrace64 t = multihead_trace_new64(&c->layer, c->x.rows, 1);
    Matrix64 y = matrix_new64(c->x.rows, c->layer.d_model);
    multihead_forward64(&c->layer, c->options, c->x, &t, y);
    double loss = 0.0;
    for (int e = 0; e < y.rows * y.cols; e++)
        loss += c->g.data[e] * y.data[e];
    matrix_free64(&y);
    multihead_trace_free64(&t);
    return loss;
}

/* Variants 0-3: scale and mask; 4: a learned bias by distance (causal); 5: a turn
 * (causal, scaled); 6: both.  The heads' width is even wherever a turn is asked. */
START_TEST(layer_gradient_matches_central_differences)
{
    for (int s = 0; s < SHAPES; s++)
        for (int variant = 0; variant < 7; variant++) {
            const int length = shapes[s][0], d = shapes[s][1], heads = shapes[s][2];
            const bool biased = variant == 4 || variant == 6, turned = variant >= 5;
            if (turned && (d / heads) % 2 != 0)
                continue;
            Rng rng;
            rng_seed(&rng, 25, (uint64_t)(10 * s + variant));
            MultiHead layer = multihead_new(d, heads, &rng);
            Case c = { multihead_widen(&layer), matrix_new64(length, d), matrix_new64(length, d),
                       variant < 4 ? plain(variant & 1, variant & 2) : plain(true, true) };
            Matrix64 bias = matrix_new64(biased ? heads : 0, length),
                     d_bias = matrix_new64(biased ? heads : 0, length);
            for (int e = 0; e < bias.rows * bias.cols; e++)
                bias.data[e] = rng_normal(&rng);
            c.options.bias = bias;
            if (turned)
                c.options.turn = (KitTurn64){ test_turn, NULL };
            for (int e = 0; e < length * d; e++) {
                c.x.data[e] = rng_normal(&rng);
                c.g.data[e] = rng_normal(&rng);
            }
            MultiHeadTrace64 trace = multihead_trace_new64(&c.layer, length, 1);
            Matrix64 y = matrix_new64(length, d), d_x = matrix_new64(length, d);
            MultiHead64 grad = multihead_new64(d, heads);
            multihead_forward64(&c.layer, c.options, c.x, &trace, y);
            multihead_backward64(&c.layer, c.options, c.x, &trace, c.g, &grad, d_bias, d_x);
            static const char *const names[4] = { "W_Q", "W_K", "W_V", "W_O" };
            KitParam64 params[6], grads[6];
            params[0] = kit_param64("X", c.x, KIT_TABLE, 1.0);
            grads[0] = kit_param64("X", d_x, KIT_TABLE, 1.0);
            multihead_params64(&c.layer, &params[1], names);
            multihead_params64(&grad, &grads[1], names);
            params[5] = kit_param64("b", bias, KIT_BIAS, 0.0);
            grads[5] = kit_param64("b", d_bias, KIT_BIAS, 0.0);
            const KitCheck check = kit_gradient_check(params, grads, 6, case_loss, &c, 1e-5);
            ck_assert_double_le(check.worst, 1e-5);
            ck_assert_int_eq(check.checked, length * d + 4 * d * d +
                                                bias.rows * bias.cols);
            multihead_trace_free64(&trace);
            multihead_free64(&grad);
            Matrix64 *all[] = { &y, &d_x, &c.x, &c.g, &bias, &d_bias };
            for (int a = 0; a < 6; a++)
                matrix_free64(all[a]);
            multihead_free64(&c.layer);
            multihead_free(&layer);
        }
}
END_TEST

/* A turn changes the scores only: with the identity turn (angle 0 at every position) the
 * layer is the plain one to the last bit, and a real turn changes the pattern. */
static void no_turn(Matrix64 x, int head_width, bool undo, const void *context)
{
    (void)x, (void)head_width, (void)undo, (void)context;
}

START_TEST(a_turn_that_does_nothing_leaves_the_layer_as_it_was)
{
    Rng rng;
    rng_seed(&rng, 27, 1);
    MultiHead layer = multihead_new(8, 2, &rng);
    MultiHead64 exact = multihead_widen(&layer);
    Matrix64 x = matrix_new64(6, 8), y0 = matrix_new64(6, 8), y1 = matrix_new64(6, 8),
             y2 = matrix_new64(6, 8);
    for (int e = 0; e < 6 * 8; e++)
        x.data[e] = rng_normal(&rng);
    MultiHeadTrace64 t0 = multihead_trace_new64(&exact, 6, 1), t1 = multihead_trace_new64(&exact, 6, 1),
                     t2 = multihead_trace_new64(&exact, 6, 1);
    LayerOptions64 idle = plain(true, true), turned = plain(true, true);
    idle.turn = (KitTurn64){ no_turn, NULL };
    turned.turn = (KitTurn64){ test_turn, NULL };
    multihead_forward64(&exact, plain(true, true), x, &t0, y0);
    multihead_forward64(&exact, idle, x, &t1, y1);
    multihead_forward64(&exact, turned, x, &t2, y2);
    ck_assert_double_eq(matrix64_largest_difference(y0, y1), 0.0);
    ck_assert_double_gt(matrix64_largest_difference(t0.weights, t2.weights), 1e-3);
    MultiHeadTrace64 *traces[] = { &t0, &t1, &t2 };
    for (int k = 0; k < 3; k++)
        multihead_trace_free64(traces[k]);
    Matrix64 *all[] = { &x, &y0, &y1, &y2 };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
    multihead_free64(&exact);
    multihead_free(&layer);
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
    MultiHead64 exact = multihead_widen(&layer), grad = multihead_new64(d, heads);
    Matrix64 x = matrix_new64(length, d), g = matrix_new64(length, d), y = matrix_new64(length, d),
             d_x = matrix_new64(length, d);
    for (int e = 0; e < length * d; e++) {
        x.data[e] = rng_normal(&rng);
        AT(g, e / d, e % d) = e / d < seen ? rng_normal(&rng) : 0.0;
    }
    MultiHeadTrace64 trace = multihead_trace_new64(&exact, length, 1);
    multihead_forward64(&exact, plain(true, true), x, &trace, y);
    multihead_backward64(&exact, plain(true, true), x, &trace, g, &grad, (Matrix64){ 0, 0, NULL },
                         d_x);
    double earlier = 0.0;
    for (int t = 0; t < length; t++)
        for (int c = 0; c < d; c++) {
            if (t >= seen)
                ck_assert(AT(d_x, t, c) == 0.0);
            else
                earlier = fmax(earlier, fabs(AT(d_x, t, c)));
        }
    ck_assert_double_gt(earlier, 1e-3);
    multihead_trace_free64(&trace);
    Matrix64 *all[] = { &x, &g, &y, &d_x };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
    multihead_free64(&exact);
    multihead_free64(&grad);
    multihead_free(&layer);
}
END_TEST

START_TEST(largest_difference_is_the_largest_gap_and_sees_a_nan)
{
    Matrix64 a = matrix_new64(2, 3), b = matrix_new64(2, 3);
    const double left[6] = { 1, -2, 3, 0.5, 0, -7 }, right[6] = { 1, 2, 2.5, 0.5, -1, -7 };
    for (int e = 0; e < 6; e++)
        a.data[e] = left[e], b.data[e] = right[e];
    ck_assert_double_eq(matrix64_largest_difference(a, b), 4.0);
    ck_assert_double_eq(matrix64_largest_difference(a, a), 0.0);
    b.data[3] = NAN;
    ck_assert(isnan(matrix64_largest_difference(a, b)));
    Matrix f = matrix_new(2, 3), g = matrix_new(2, 3);
    for (int e = 0; e < 6; e++)
        f.data[e] = (float)left[e], g.data[e] = (float)right[e];
    g.data[0] = 1.0f + 0x1p-20f;        /* the float twin: exact in double */
    ck_assert_double_eq(matrix_largest_difference(f, g), 4.0);
    ck_assert_double_eq(matrix_largest_difference(f, f), 0.0);
    g.data[1] = -2.0f, g.data[2] = 3.0f, g.data[4] = 0.0f;
    ck_assert_double_eq(matrix_largest_difference(f, g), 0x1p-20);
    f.data[5] = NAN;
    ck_assert(isnan(matrix_largest_difference(f, g)));
    matrix_free(&f);
    matrix_free(&g);
    matrix_free64(&a);
    matrix_free64(&b);
}
END_TEST

/* The initialiser draws scale * normal for every entry, in the list's order, a matrix of
 * scale 0 included. */
START_TEST(init_draws_each_matrix_at_its_scale_in_order)
{
    Matrix64 a = matrix_new64(2, 3), zero = matrix_new64(1, 2), b = matrix_new64(3, 1);
    const KitParam64 list[3] = { kit_param64("a", a, KIT_TABLE, 1.0),
                               kit_param64("zero", zero, KIT_BIAS, 0.0),
                               kit_param64("b", b, KIT_WEIGHT, 0.25) };
    Rng rng, again;
    rng_seed(&rng, 28, 3);
    rng_seed(&again, 28, 3);
    kit_init64(list, 3, &rng);
    for (int e = 0; e < 6; e++)
        ck_assert_double_eq(a.data[e], rng_normal(&again));
    for (int e = 0; e < 2; e++) {
        (void)rng_normal(&again);
        ck_assert_double_eq(zero.data[e], 0.0);
    }
    for (int e = 0; e < 3; e++)
        ck_assert_double_eq(b.data[e], 0.25 * rng_normal(&again));
    matrix_free64(&a);
    matrix_free64(&zero);
    matrix_free64(&b);
}
END_TEST

/* Adam against its formula, written out for one weight over three steps with changing
 * gradients, and the first step's move of -rate * sign(g). */
START_TEST(adam_follows_its_formula)
{
    Matrix64 w = matrix_new64(1, 2), g = matrix_new64(1, 2);
    const KitParam64 weights[1] = { kit_param64("w", w, KIT_WEIGHT, 1.0) },
                   gradient[1] = { kit_param64("g", g, KIT_WEIGHT, 1.0) };
    KitAdam64 adam = kit_adam_new64(weights, 1, 0.05);
    const double given[3] = { 0.3, -1.2, 2e-3 };
    double theta = 0.7, m = 0.0, v = 0.0;
    w.data[0] = theta;
    for (int t = 1; t <= 3; t++) {
        g.data[0] = given[t - 1];
        g.data[1] = -4.0;
        const double before = w.data[1];
        kit_adam_step64(&adam, weights, gradient);
        m = 0.9 * m + 0.1 * given[t - 1];
        v = 0.999 * v + 0.001 * given[t - 1] * given[t - 1];
        theta -= 0.05 * (m / (1 - pow(0.9, t))) / (sqrt(v / (1 - pow(0.999, t))) + 1e-8);
        ck_assert_double_eq_tol(w.data[0], theta, 1e-15);
        ck_assert_double_eq_tol(w.data[1] - before, 0.05, 1e-9);  /* a steady gradient */
    }
    ck_assert_int_eq(adam.step, 3);
    kit_adam_free64(&adam);
    matrix_free64(&w);
    matrix_free64(&g);
}
END_TEST

/* The check on f(a, b) = sum a_e^2 + 3 sum a_e b_e: exact gradients pass, and a gradient
 * with one wrong entry in b is found, in its matrix, entry by entry. */
typedef struct {
    Matrix64 a, b;
} Quadratic;

static double quadratic_loss(void *q)
{
    const Quadratic *f = q;
    double loss = 0.0;
    for (int e = 0; e < 4; e++)
        loss += f->a.data[e] * f->a.data[e] + 3.0 * f->a.data[e] * f->b.data[e];
    return loss;
}

START_TEST(gradient_check_passes_a_right_gradient_and_finds_a_wrong_one)
{
    Quadratic f = { matrix_new64(2, 2), matrix_new64(1, 4) };
    Matrix64 da = matrix_new64(2, 2), db = matrix_new64(1, 4);
    for (int e = 0; e < 4; e++) {
        f.a.data[e] = 0.5 * e - 1.0;
        f.b.data[e] = 1.0 - 0.25 * e;
        da.data[e] = 2.0 * f.a.data[e] + 3.0 * f.b.data[e];
        db.data[e] = 3.0 * f.a.data[e];
    }
    const KitParam64 params[2] = { kit_param64("a", f.a, KIT_WEIGHT, 1.0),
                                 kit_param64("b", f.b, KIT_WEIGHT, 1.0) };
    const KitParam64 grads[2] = { kit_param64("a", da, KIT_WEIGHT, 1.0),
                                kit_param64("b", db, KIT_WEIGHT, 1.0) };
    const double a0 = f.a.data[1];
    KitCheck check = kit_gradient_check(params, grads, 2, quadratic_loss, &f, 1e-4);
    ck_assert_double_le(check.worst, 1e-9);
    ck_assert_int_eq(check.checked, 8);
    ck_assert_double_eq(f.a.data[1], a0);           /* every entry put back */
    db.data[2] += 0.5;
    check = kit_gradient_check(params, grads, 2, quadratic_loss, &f, 1e-4);
    ck_assert_int_eq(check.worst_matrix, 1);
    ck_assert_double_gt(check.worst, 0.1);
    ck_assert_double_gt(check.worst_entry, 0.1);
    Matrix64 *all[] = { &f.a, &f.b, &da, &db };
    for (int k = 0; k < 4; k++)
        matrix_free64(all[k]);
}
END_TEST

/* A stack of three layers with learned biases: its forward pass is the layers composed by
 * hand on the residual stream, and its backward pass, for L = sum G * x_last, passes the
 * gradient check on the input, every weight and every bias. */
typedef struct {
    KitStack64 stack;
    Matrix64 g;
    KitStackWork64 work;
} StackCase;

static double stack_loss(void *sc)
{
    StackCase *c = sc;
    kit_stack_forward64(&c->stack, &c->work);
    const Matrix64 last = c->work.x[c->stack.layers];
    double loss = 0.0;
    for (int e = 0; e < last.rows * last.cols; e++)
        loss += c->g.data[e] * last.data[e];
    return loss;
}

START_TEST(stack_is_its_layers_on_the_stream_and_passes_the_gradient_check)
{
    const int layers = 3, length = 5, d = 6, heads = 2;
    Rng rng;
    rng_seed(&rng, 29, 1);
    StackCase c = { kit_stack_new64(layers, d, heads, length), matrix_new64(length, d), { 0 } };
    c.work = kit_stack_work_new64(&c.stack, length, 1);
    KitStack64 grad = kit_stack_new64(layers, d, heads, length);
    static const char *const names[4] = { "W_Q", "W_K", "W_V", "W_O" };
    KitParam64 params[1 + 5 * 3], grads[1 + 5 * 3];
    Matrix64 input = c.work.x[0], d_x = matrix_new64(length, d);
    params[0] = kit_param64("X", input, KIT_TABLE, 1.0);
    grads[0] = kit_param64("X", d_x, KIT_TABLE, 1.0);
    for (int l = 0; l < layers; l++) {
        multihead_params64(&c.stack.layer[l], &params[1 + 5 * l], names);
        multihead_params64(&grad.layer[l], &grads[1 + 5 * l], names);
        params[5 + 5 * l] = kit_param64("b", c.stack.bias[l], KIT_BIAS, 0.5);
        grads[5 + 5 * l] = kit_param64("b", grad.bias[l], KIT_BIAS, 0.5);
    }
    kit_init64(params, 1 + 5 * layers, &rng);
    for (int e = 0; e < length * d; e++)
        c.g.data[e] = rng_normal(&rng);
    kit_stack_forward64(&c.stack, &c.work);
    Matrix64 x = matrix_new64(length, d), y = matrix_new64(length, d);
    MultiHeadTrace64 t = multihead_trace_new64(&c.stack.layer[0], length, 1);
    memcpy(x.data, input.data, sizeof(double) * (size_t)(length * d));
    for (int l = 0; l < layers; l++) {
        multihead_forward64(&c.stack.layer[l], kit_stack_layer64(&c.stack, l), x, &t, y);
        matrix_add64(y, x);
        ck_assert_double_eq(matrix64_largest_difference(x, c.work.x[l + 1]), 0.0);
    }
    memcpy(d_x.data, c.g.data, sizeof(double) * (size_t)(length * d));
    kit_stack_backward64(&c.stack, &c.work, d_x, &grad);
    const KitCheck check = kit_gradient_check(params, grads, 1 + 5 * layers, stack_loss, &c,
                                              1e-5);
    ck_assert_double_le(check.worst, 1e-6);
    multihead_trace_free64(&t);
    Matrix64 *all[] = { &x, &y, &d_x, &c.g };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
    kit_stack_work_free64(&c.work);
    kit_stack_free64(&c.stack);
    kit_stack_free64(&grad);
}
END_TEST

/* The float build against the double one: one stack, rounded to float and widened back, so
 * that both widths hold the same parameters; shapes that leave vector tails (d_head 10, T 21)
 * and two sequences.  The stream and every gradient agree to float's rounding, and differ:
 * the float build computes in float. */
static void stack_params32(KitStack32 *s, KitParam32 *list)
{
    static const char *const names[4] = { "W_Q", "W_K", "W_V", "W_O" };
    for (int l = 0; l < s->layers; l++) {
        multihead_params32(&s->layer[l], &list[5 * l], names);
        list[5 * l + 4] = kit_param32("b", s->bias[l], KIT_BIAS, 0.5);
    }
}

static void stack_params64(KitStack64 *s, KitParam64 *list)
{
    static const char *const names[4] = { "W_Q", "W_K", "W_V", "W_O" };
    for (int l = 0; l < s->layers; l++) {
        multihead_params64(&s->layer[l], &list[5 * l], names);
        list[5 * l + 4] = kit_param64("b", s->bias[l], KIT_BIAS, 0.5);
    }
}

START_TEST(the_float_stack_agrees_with_the_double_stack_to_float_rounding)
{
    enum { LAYERS = 2, D = 40, HEADS = 4, T = 21, B = 2, COUNT = 5 * LAYERS };
    Rng rng;
    rng_seed(&rng, 31, 1);
    KitStack64 wide = kit_stack_new64(LAYERS, D, HEADS, T),
               wide_grad = kit_stack_new64(LAYERS, D, HEADS, T);
    KitStack32 slim = kit_stack_new32(LAYERS, D, HEADS, T),
               slim_grad = kit_stack_new32(LAYERS, D, HEADS, T);
    KitParam64 p64[COUNT], g64[COUNT];
    KitParam32 p32[COUNT], g32[COUNT];
    stack_params64(&wide, p64);
    stack_params64(&wide_grad, g64);
    stack_params32(&slim, p32);
    stack_params32(&slim_grad, g32);
    kit_init64(p64, COUNT, &rng);
    kit_narrow(p64, p32, COUNT);
    kit_widen(p32, p64, COUNT);
    KitStackWork64 w64 = kit_stack_work_new64(&wide, T, B);
    KitStackWork32 w32 = kit_stack_work_new32(&slim, T, B);
    Matrix64 d64 = matrix_new64(T * B, D), top = matrix_new64(T * B, D);
    Matrix32 d32 = matrix_new32(T * B, D);
    for (int e = 0; e < T * B * D; e++) {
        w32.x[0].data[e] = (float)rng_normal(&rng);
        w64.x[0].data[e] = w32.x[0].data[e];
        d32.data[e] = (float)rng_normal(&rng);
        d64.data[e] = d32.data[e];
    }
    kit_stack_forward64(&wide, &w64);
    kit_stack_forward32(&slim, &w32);
    matrix_widen(w32.x[LAYERS], top);
    const double stream = relative_difference(top.data, w64.x[LAYERS].data, T * B * D);
    ck_assert_double_le(stream, 1e-5);
    ck_assert_double_gt(stream, 0.0);
    kit_stack_backward64(&wide, &w64, d64, &wide_grad);
    kit_stack_backward32(&slim, &w32, d32, &slim_grad);
    for (int q = 0; q < COUNT; q++) {
        const double gap = kit_widths_difference(&g32[q], &g64[q], 1);
        ck_assert_double_le(gap, 1e-4);
        ck_assert_double_gt(gap, 0.0);
    }
    Matrix64 *m64[] = { &d64, &top };
    for (int k = 0; k < 2; k++)
        matrix_free64(m64[k]);
    matrix_free32(&d32);
    kit_stack_work_free64(&w64);
    kit_stack_work_free32(&w32);
    kit_stack_free64(&wide);
    kit_stack_free64(&wide_grad);
    kit_stack_free32(&slim);
    kit_stack_free32(&slim_grad);
}
END_TEST

/* A stack built with a mixer runs the mixer in every layer.  The test mixer is y = x A, with
 * a trace that remembers the shape it was made for; two layers of it on the residual stream
 * are computed here by hand, forward and backward. */
typedef struct {
    int d;
    Matrix64 a;
} TestMixer;

static void *test_mixer_make(int d_model)
{
    TestMixer *m = malloc(sizeof *m);
    ck_assert_ptr_nonnull(m);
    *m = (TestMixer){ d_model, matrix_new64(d_model, d_model) };
    return m;
}

static void test_mixer_destroy(void *mixer)
{
    TestMixer *m = mixer;
    matrix_free64(&m->a);
    free(m);
}

static int test_mixer_params(void *mixer, KitParam64 *list)
{
    TestMixer *m = mixer;
    if (list != NULL)
        list[0] = kit_param64("A", m->a, KIT_WEIGHT, 0.25);
    return 1;
}

static void *test_mixer_trace_make(const void *mixer, int length, int sequences)
{
    (void)mixer;
    int *rows = malloc(sizeof *rows);
    ck_assert_ptr_nonnull(rows);
    *rows = length * sequences;
    return rows;
}

static void test_mixer_forward(const void *mixer, Matrix64 x, int length, void *trace,
                               Matrix64 y)
{
    const TestMixer *m = mixer;
    ck_assert_int_eq(*(int *)trace, x.rows);
    ck_assert_int_eq(x.rows % length, 0);
    matrix_multiply64(x, m->a, y);
}

static void test_mixer_backward(const void *mixer, Matrix64 x, int length, void *trace,
                                Matrix64 d_y, void *grad, Matrix64 d_x)
{
    const TestMixer *m = mixer;
    ck_assert_int_eq(*(int *)trace, x.rows);
    ck_assert_int_eq(x.rows % length, 0);
    matrix_zero64(d_x);
    product_backward64(x, m->a, d_y, ((TestMixer *)grad)->a, d_x);
}

static const KitMixer64 test_mixer = { "x A", test_mixer_make, test_mixer_destroy,
                                       test_mixer_params, test_mixer_trace_make, free,
                                       test_mixer_forward, test_mixer_backward };

/* c = a b, or c = a b^T, by the triple loop; d x d matrices times rows x d */
static void by_hand(const Matrix64 a, const Matrix64 b, bool transpose, Matrix64 c)
{
    for (int i = 0; i < c.rows; i++)
        for (int j = 0; j < c.cols; j++) {
            double sum = 0.0;
            for (int p = 0; p < a.cols; p++)
                sum += AT(a, i, p) * (transpose ? AT(b, j, p) : AT(b, p, j));
            AT(c, i, j) = sum;
        }
}

START_TEST(a_mixed_stack_is_its_mixers_on_the_stream_forward_and_backward)
{
    enum { LAYERS = 2, D = 5, T = 4, B = 3, ROWS = T * B };
    Rng rng;
    rng_seed(&rng, 37, 1);
    KitStack64 s = kit_stack_new_mixed64(LAYERS, D, &test_mixer),
               grad = kit_stack_new_mixed64(LAYERS, D, &test_mixer);
    ck_assert_ptr_null(s.layer);
    ck_assert_ptr_null(s.bias);
    KitParam64 p[LAYERS], g[LAYERS];
    ck_assert_int_eq(kit_stack_params64(&s, NULL), LAYERS);
    ck_assert_int_eq(kit_stack_params64(&s, p), LAYERS);
    ck_assert_int_eq(kit_stack_params64(&grad, g), LAYERS);
    for (int l = 0; l < LAYERS; l++) {
        ck_assert_ptr_eq(p[l].data, ((TestMixer *)s.mixed[l])->a.data);
        ck_assert_ptr_eq(g[l].data, ((TestMixer *)grad.mixed[l])->a.data);
        ck_assert_str_eq(p[l].name, "A");
        ck_assert_double_eq(p[l].scale, 0.25);
    }
    kit_init64(p, LAYERS, &rng);
    KitStackWork64 w = kit_stack_work_new64(&s, T, B);
    ck_assert_ptr_null(w.trace);
    Matrix64 d_x = matrix_new64(ROWS, D), gain = matrix_new64(ROWS, D);
    for (int e = 0; e < ROWS * D; e++) {
        w.x[0].data[e] = rng_normal(&rng);
        gain.data[e] = d_x.data[e] = rng_normal(&rng);
    }
    kit_stack_forward64(&s, &w);
    kit_stack_backward64(&s, &w, d_x, &grad);
    const Matrix64 a1 = ((TestMixer *)s.mixed[0])->a, a2 = ((TestMixer *)s.mixed[1])->a;
    Matrix64 x1 = matrix_new64(ROWS, D), x2 = matrix_new64(ROWS, D),
             d1 = matrix_new64(ROWS, D), d0 = matrix_new64(ROWS, D),
             grad1 = matrix_new64(D, D), grad2 = matrix_new64(D, D);
    by_hand(w.x[0], a1, false, x1);           /* x1 = x0 + x0 A1 */
    matrix_add64(w.x[0], x1);
    by_hand(x1, a2, false, x2);               /* x2 = x1 + x1 A2 */
    matrix_add64(x1, x2);
    ck_assert_double_le(matrix64_largest_difference(x1, w.x[1]), 1e-12);
    ck_assert_double_le(matrix64_largest_difference(x2, w.x[2]), 1e-12);
    by_hand(gain, a2, true, d1);              /* d1 = g + g A2^T */
    matrix_add64(gain, d1);
    by_hand(d1, a1, true, d0);                /* d0 = d1 + d1 A1^T */
    matrix_add64(d1, d0);
    for (int i = 0; i < D; i++)               /* dA1 = x0^T d1, dA2 = x1^T g */
        for (int j = 0; j < D; j++)
            for (int r = 0; r < ROWS; r++) {
                AT(grad1, i, j) += AT(w.x[0], r, i) * AT(d1, r, j);
                AT(grad2, i, j) += AT(x1, r, i) * AT(gain, r, j);
            }
    ck_assert_double_le(matrix64_largest_difference(d0, d_x), 1e-12);
    ck_assert_double_le(matrix64_largest_difference(grad1, ((TestMixer *)grad.mixed[0])->a),
                        1e-12);
    ck_assert_double_le(matrix64_largest_difference(grad2, ((TestMixer *)grad.mixed[1])->a),
                        1e-12);
    ck_assert_double_gt(matrix64_largest_difference(d0, gain), 0.1);
    Matrix64 *all[] = { &x1, &x2, &d1, &d0, &grad1, &grad2, &d_x, &gain };
    for (int k = 0; k < 8; k++)
        matrix_free64(all[k]);
    kit_stack_work_free64(&w);
    kit_stack_free64(&s);
    kit_stack_free64(&grad);
}
END_TEST

/* The attention stack's list: four weights a layer as chapter 12 names and scales them, then
 * the bias by distance when it has columns, at scale 0; none without columns. */
START_TEST(stack_params_lists_every_matrix_in_its_order)
{
    enum { D = 8, HEADS = 2, T = 6 };
    KitStack64 s = kit_stack_new64(2, D, HEADS, T), plain = kit_stack_new64(3, D, HEADS, 0);
    KitParam64 list[12];
    ck_assert_int_eq(kit_stack_params64(&s, NULL), 10);
    ck_assert_int_eq(kit_stack_params64(&s, list), 10);
    static const char *const names[10] = { "W_Q1", "W_K1", "W_V1", "W_O1", "b1",
                                           "W_Q2", "W_K2", "W_V2", "W_O2", "b2" };
    for (int l = 0; l < 2; l++) {
        const Matrix64 m[5] = { s.layer[l].w_query, s.layer[l].w_key, s.layer[l].w_value,
                                s.layer[l].w_out, s.bias[l] };
        for (int k = 0; k < 5; k++) {
            const KitParam64 e = list[5 * l + k];
            ck_assert_str_eq(e.name, names[5 * l + k]);
            ck_assert_ptr_eq(e.data, m[k].data);
            ck_assert_int_eq(e.rows, m[k].rows);
            ck_assert_int_eq(e.cols, m[k].cols);
            ck_assert_int_eq(e.role, k < 4 ? KIT_WEIGHT : KIT_BIAS);
            ck_assert_double_eq(e.scale, k < 4 ? 1.0 / sqrt((double)D) : 0.0);
        }
    }
    ck_assert_int_eq(kit_stack_params64(&plain, NULL), 12);
    ck_assert_int_eq(kit_stack_params64(&plain, list), 12);
    ck_assert_str_eq(list[11].name, "W_O3");
    ck_assert_ptr_eq(list[8].data, plain.layer[2].w_query.data);
    kit_stack_free64(&s);
    kit_stack_free64(&plain);
}
END_TEST

/* The distance of two widths is rho of the worst matrix: here the second, 0.5 / 4.5. */
START_TEST(the_widths_difference_is_the_worst_matrix_rho)
{
    float a[2] = { 1, 2 }, b[2] = { 3, 4 };
    double c[2] = { 1, 2.25 }, d[2] = { 3, 4.5 };
    const KitParam32 slim[2] = { { "a", a, 1, 2, KIT_WEIGHT, 1.0 },
                                 { "b", b, 2, 1, KIT_WEIGHT, 1.0 } };
    const KitParam64 wide[2] = { { "a", c, 1, 2, KIT_WEIGHT, 1.0 },
                                 { "b", d, 2, 1, KIT_WEIGHT, 1.0 } };
    ck_assert_double_eq_tol(kit_widths_difference(slim, wide, 2), 0.5 / 4.5, 1e-15);
    ck_assert_double_eq_tol(kit_widths_difference(slim, wide, 1), 0.25 / 2.25, 1e-15);
}
END_TEST

START_TEST(largest_difference_refuses_unequal_shapes)
{
    Matrix64 a = matrix_new64(2, 3), b = matrix_new64(3, 2);
    matrix64_largest_difference(a, b);
    matrix_free64(&a);
    matrix_free64(&b);
}
END_TEST

START_TEST(a_bias_without_the_mask_is_refused)
{
    MultiHead64 m = multihead_new64(4, 2);
    Matrix64 x = matrix_new64(3, 4), y = matrix_new64(3, 4), bias = matrix_new64(2, 3);
    MultiHeadTrace64 t = multihead_trace_new64(&m, 3, 1);
    LayerOptions64 o = plain(true, false);
    o.bias = bias;
    multihead_forward64(&m, o, x, &t, y);
}
END_TEST

START_TEST(product64_refuses_shapes_that_do_not_chain)
{
    Matrix64 a = matrix_new64(2, 3), b = matrix_new64(4, 2), c = matrix_new64(2, 2);
    matrix_multiply64(a, b, c);
    matrix_free64(&a);
    matrix_free64(&b);
    matrix_free64(&c);
}
END_TEST

START_TEST(multihead64_refuses_heads_that_split_the_width_unevenly)
{
    MultiHead64 m = multihead_new64(6, 4);
    multihead_free64(&m);
}
END_TEST

START_TEST(a_mixed_stack_refuses_a_mixer_without_its_backward_pass)
{
    KitMixer64 half = test_mixer;
    half.backward = NULL;
    kit_stack_new_mixed64(2, 4, &half);
}
END_TEST

Suite *kit_suite(void)
{
    Suite *suite = suite_create("kit");
    TCase *softmax = tcase_create("the double softmax");
    tcase_add_test(softmax, double_softmax_matches_chapter_one);
    suite_add_tcase(suite, softmax);
    TCase *matrices = tcase_create("double-precision matrices");
    tcase_add_test(matrices, products_match_a_triple_loop);
    tcase_add_test(matrices, products_match_triple_loops_across_vector_blocks);
    tcase_add_test(matrices, relative_difference_of_matrices);
    tcase_add_test(matrices, largest_difference_is_the_largest_gap_and_sees_a_nan);
    suite_add_tcase(suite, matrices);
    TCase *layer = tcase_create("the multi-head layer");
    tcase_add_test(layer, double_layer_matches_chapter_five);
    tcase_add_test(layer, a_batch_is_its_sequences_alone);
    tcase_add_test(layer, layer_gradient_matches_central_differences);
    tcase_add_test(layer, causal_layer_sends_no_gradient_to_later_inputs);
    tcase_add_test(layer, a_turn_that_does_nothing_leaves_the_layer_as_it_was);
    tcase_add_test(layer, stack_is_its_layers_on_the_stream_and_passes_the_gradient_check);
    tcase_add_test(layer, the_float_stack_agrees_with_the_double_stack_to_float_rounding);
    tcase_add_test(layer, the_widths_difference_is_the_worst_matrix_rho);
    tcase_add_test(layer, a_mixed_stack_is_its_mixers_on_the_stream_forward_and_backward);
    tcase_add_test(layer, stack_params_lists_every_matrix_in_its_order);
    suite_add_tcase(suite, layer);
    TCase *training = tcase_create("training");
    tcase_add_test(training, init_draws_each_matrix_at_its_scale_in_order);
    tcase_add_test(training, adam_follows_its_formula);
    tcase_add_test(training, gradient_check_passes_a_right_gradient_and_finds_a_wrong_one);
    suite_add_tcase(suite, training);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, product64_refuses_shapes_that_do_not_chain, SIGABRT);
    tcase_add_test_raise_signal(refused, multihead64_refuses_heads_that_split_the_width_unevenly, SIGABRT);
    tcase_add_test_raise_signal(refused, largest_difference_refuses_unequal_shapes, SIGABRT);
    tcase_add_test_raise_signal(refused, a_bias_without_the_mask_is_refused, SIGABRT);
    tcase_add_test_raise_signal(refused, a_mixed_stack_refuses_a_mixer_without_its_backward_pass,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
