/* Tests of the positions module (chapter 10): RoPE turns each pair by the rotation matrix
 * written out, keeps norms, makes scores depend only on the offset, and its two layouts agree
 * after reordering the coordinates; turning rows from a first position equals turning a longer
 * matrix from 0; undoing a turn gives the input back.  Shuffling the input shuffles the
 * outputs only without the mask.  The sinusoidal code is its closed form, and an offset is a
 * rotation; ALiBi has the published slopes and is linear in the distance.  The experiment's
 * layer is chapter 9's without RoPE and ALiBi, every encoding and every shape (two layers, a
 * BOS, one wide head) passes the gradient check, a batch's loss and gradient are the means of
 * its sequences' taken alone, every encoding starts from the same weights, a copy of a model
 * is its own and equal to it, a model without
 * positions is order-blind and stays under the bag bound, one layer sees proportions and a BOS
 * gives it the count, a stretched turn is the turn of the stretched position, uniform heads
 * weigh each offset by the closed form, the accuracy by position is the obvious count, and
 * Adam's first step is the rate times the sign. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "mask.h"
#include "positions.h"
#include "refusal.h"

/* The angle of pair i at position t, written as the papers write it: t / base^(2i/d). */
static double angle_of(double t, int i, int width, double base)
{
    return t / exp(log(base) * (2.0 * i) / width);
}

/* The test of exercise ex:positions-rope: every pair turned by the 2 x 2 rotation matrix. */
START_TEST(rope_turns_each_pair_by_its_rotation_matrix)
{
    const int width = 4, heads = 2;
    const double base = 10000.0;
    for (int layout = ROPE_INTERLEAVED; layout <= ROPE_HALF_SPLIT; layout++) {
        Matrix x = matrix_new(3, width * heads);
        for (int e = 0; e < 3 * width * heads; e++)
            x.data[e] = (float)(0.25 * (e + 1) - 2.0);
        Matrix original = matrix_new(3, width * heads);
        memcpy(original.data, x.data, sizeof(float) * 3 * width * heads);
        rope_rotate(&x, 5, width, (RopeLayout)layout, base);
        for (int t = 0; t < 3; t++)
            for (int h = 0; h < heads; h++)
                for (int i = 0; i < width / 2; i++) {
                    const int a = h * width + (layout == ROPE_INTERLEAVED ? 2 * i : i);
                    const int b = h * width + (layout == ROPE_INTERLEAVED ? 2 * i + 1
                                                                        : i + width / 2);
                    const double angle = angle_of(5 + t, i, width, base);
                    const double xa = AT(original, t, a), xb = AT(original, t, b);
                    ck_assert_double_eq_tol(AT(x, t, a), cos(angle) * xa - sin(angle) * xb,
                                            1e-6);
                    ck_assert_double_eq_tol(AT(x, t, b), sin(angle) * xa + cos(angle) * xb,
                                            1e-6);
                }
        matrix_free(&x);
        matrix_free(&original);
    }
}
END_TEST

START_TEST(rope_at_position_zero_changes_nothing)
{
    Rng rng;
    rng_seed(&rng, 31, 1);
    Matrix x = matrix_new_normal(1, 16, &rng, 1.0f), y = matrix_new(1, 16);
    memcpy(y.data, x.data, sizeof(float) * 16);
    rope_rotate(&y, 0, 8, ROPE_HALF_SPLIT, 10000.0);
    ck_assert(memcmp(x.data, y.data, sizeof(float) * 16) == 0);
    matrix_free(&x);
    matrix_free(&y);
}
END_TEST

/* The scores of a query at m and a key at n, turned in double, depend on n - m alone. */
START_TEST(rope_scores_depend_only_on_the_offset)
{
    const int width = 32;
    Rng rng;
    rng_seed(&rng, 32, 1);
    for (int layout = ROPE_INTERLEAVED; layout <= ROPE_HALF_SPLIT; layout++)
        for (int trial = 0; trial < 10; trial++) {
            Matrix64 q = matrix_new64(1, width), k = matrix_new64(1, width),
                     q2 = matrix_new64(1, width), k2 = matrix_new64(1, width);
            double size = 0.0, qq = 0.0, kk = 0.0;
            for (int c = 0; c < width; c++) {
                q.data[c] = q2.data[c] = rng_normal(&rng);
                k.data[c] = k2.data[c] = rng_normal(&rng);
                qq += q.data[c] * q.data[c];
                kk += k.data[c] * k.data[c];
            }
            size = sqrt(qq * kk);
            const int m = (int)rng_below(&rng, 100), n = (int)rng_below(&rng, 100);
            const int shift = 1 + (int)rng_below(&rng, 100000);
            rope_rotate64(q, m, width, (RopeLayout)layout, 10000.0, false);
            rope_rotate64(k, n, width, (RopeLayout)layout, 10000.0, false);
            rope_rotate64(q2, m + shift, width, (RopeLayout)layout, 10000.0, false);
            rope_rotate64(k2, n + shift, width, (RopeLayout)layout, 10000.0, false);
            double s = 0.0, s2 = 0.0;
            for (int c = 0; c < width; c++) {
                s += q.data[c] * k.data[c];
                s2 += q2.data[c] * k2.data[c];
            }
            ck_assert_double_le(fabs(s - s2), 1e-9 * size);
            /* and it does depend on the offset: another offset, another score */
            Matrix64 k3 = matrix_new64(1, width);
            memcpy(k3.data, k2.data, sizeof(double) * width);
            rope_rotate64(k3, 1, width, (RopeLayout)layout, 10000.0, false);
            double s3 = 0.0;
            for (int c = 0; c < width; c++)
                s3 += q2.data[c] * k3.data[c];
            ck_assert_double_gt(fabs(s3 - s2), 1e-3 * size);
            Matrix64 *all[] = { &q, &k, &q2, &k2, &k3 };
            for (int a = 0; a < 5; a++)
                matrix_free64(all[a]);
        }
}
END_TEST

START_TEST(rope_keeps_norms_and_undo_turns_back)
{
    Rng rng;
    rng_seed(&rng, 33, 1);
    for (int layout = ROPE_INTERLEAVED; layout <= ROPE_HALF_SPLIT; layout++) {
        Matrix64 x = matrix_new64(9, 24), y = matrix_new64(9, 24);
        for (int e = 0; e < 9 * 24; e++)
            x.data[e] = y.data[e] = rng_normal(&rng);
        rope_rotate64(y, 123456, 6, (RopeLayout)layout, 500.0, false);
        for (int t = 0; t < 9; t++) {
            double before = 0.0, after = 0.0;
            for (int c = 0; c < 24; c++) {
                before += AT(x, t, c) * AT(x, t, c);
                after += AT(y, t, c) * AT(y, t, c);
            }
            ck_assert_double_eq_tol(after, before, 1e-12 * before);
        }
        rope_rotate64(y, 123456, 6, (RopeLayout)layout, 500.0, true);
        ck_assert_double_le(relative_difference(x.data, y.data, 9 * 24), 1e-12);
        matrix_free64(&x);
        matrix_free64(&y);
    }
}
END_TEST

/* Half-split coordinate c is interleaved coordinate 2c (first half) or 2(c - d/2) + 1. */
START_TEST(rope_layouts_agree_after_reordering)
{
    const int width = 10, heads = 3, rows = 7;
    Rng rng;
    rng_seed(&rng, 34, 1);
    Matrix split = matrix_new_normal(rows, width * heads, &rng, 1.0f),
           mixed = matrix_new(rows, width * heads);
    for (int t = 0; t < rows; t++)
        for (int h = 0; h < heads; h++)
            for (int c = 0; c < width; c++) {
                const int place = c < width / 2 ? 2 * c : 2 * (c - width / 2) + 1;
                AT(mixed, t, h * width + place) = AT(split, t, h * width + c);
            }
    rope_rotate(&split, 40, width, ROPE_HALF_SPLIT, 10000.0);
    rope_rotate(&mixed, 40, width, ROPE_INTERLEAVED, 10000.0);
    for (int t = 0; t < rows; t++)
        for (int h = 0; h < heads; h++)
            for (int c = 0; c < width; c++) {
                const int place = c < width / 2 ? 2 * c : 2 * (c - width / 2) + 1;
                ck_assert(AT(mixed, t, h * width + place) == AT(split, t, h * width + c));
            }
    matrix_free(&split);
    matrix_free(&mixed);
}
END_TEST

/* A cache turns each key at its own position: rows from first_position p are the rows p, p+1,
 * ... of the same matrix turned from 0, bit for bit. */
START_TEST(rope_from_a_first_position_equals_the_rows_of_a_longer_matrix)
{
    Rng rng;
    rng_seed(&rng, 35, 1);
    Matrix all = matrix_new_normal(20, 16, &rng, 1.0f), tail = matrix_new(5, 16);
    memcpy(tail.data, &AT(all, 12, 0), sizeof(float) * 5 * 16);
    rope_rotate(&all, 0, 16, ROPE_INTERLEAVED, 10000.0);
    rope_rotate(&tail, 12, 16, ROPE_INTERLEAVED, 10000.0);
    ck_assert(memcmp(tail.data, &AT(all, 12, 0), sizeof(float) * 5 * 16) == 0);
    matrix_free(&all);
    matrix_free(&tail);
}
END_TEST

/* Position interpolation: with stretch s, row t turns by the angles of position s t.  With
 * s = 1/4, row 4k is turned as row k is without a stretch, and row 2's first pair, whose
 * frequency is 1, turns by half a radian. */
START_TEST(a_stretched_turn_is_the_turn_of_the_stretched_position)
{
    enum { ROWS = 13, WIDTH8 = 8 };
    Rng rng;
    rng_seed(&rng, 36, 1);
    Matrix64 x = matrix_new64(ROWS, WIDTH8), row = matrix_new64(1, WIDTH8);
    for (int e = 0; e < ROWS * WIDTH8; e++)
        x.data[e] = rng_normal(&rng);
    Matrix64 y = matrix_new64(ROWS, WIDTH8);
    memcpy(y.data, x.data, sizeof(double) * ROWS * WIDTH8);
    const RopeTurn quarter = { ROPE_INTERLEAVED, 10000.0, 0, 0.25 };
    rope_turn64(y, WIDTH8, false, &quarter);
    for (int k = 0; 4 * k < ROWS; k++) {
        memcpy(row.data, &AT(x, 4 * k, 0), sizeof(double) * WIDTH8);
        rope_rotate64(row, k, WIDTH8, ROPE_INTERLEAVED, 10000.0, false);
        for (int c = 0; c < WIDTH8; c++)
            ck_assert_double_eq_tol(AT(y, 4 * k, c), row.data[c], 1e-15);
    }
    const double c = cos(0.5), s = sin(0.5);
    ck_assert_double_eq_tol(AT(y, 2, 0), c * AT(x, 2, 0) - s * AT(x, 2, 1), 1e-15);
    ck_assert_double_eq_tol(AT(y, 2, 1), s * AT(x, 2, 0) + c * AT(x, 2, 1), 1e-15);
    matrix_free64(&x);
    matrix_free64(&y);
    matrix_free64(&row);
}
END_TEST

START_TEST(rope_refuses_an_odd_head_width)
{
    Matrix x = matrix_new(2, 6);
    rope_rotate(&x, 0, 3, ROPE_INTERLEAVED, 10000.0);
    matrix_free(&x);
}
END_TEST

START_TEST(rope_refuses_heads_that_do_not_tile_the_row)
{
    Matrix x = matrix_new(2, 6);
    rope_rotate(&x, 0, 4, ROPE_HALF_SPLIT, 10000.0);
    matrix_free(&x);
}
END_TEST

START_TEST(rope_refuses_a_negative_position)
{
    Matrix x = matrix_new(2, 4);
    rope_rotate(&x, -1, 4, ROPE_INTERLEAVED, 10000.0);
    matrix_free(&x);
}
END_TEST

START_TEST(rope_refuses_a_base_of_one)
{
    Matrix x = matrix_new(2, 4);
    rope_rotate(&x, 0, 4, ROPE_INTERLEAVED, 1.0);
    matrix_free(&x);
}
END_TEST


/* Without a mask a head is permutation equivariant, up to the rounding of reordered sums;
 * with the causal mask it is not. */
START_TEST(shuffling_moves_the_outputs_only_without_the_mask)
{
    enum { T = 10, D = 8 };
    Rng rng;
    rng_seed(&rng, 36, 1);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f);
    HeadWeights w = head_weights_new(D, D, &rng);
    const int order[T] = { 3, 9, 0, 7, 1, 8, 2, 6, 4, 5 }, same[T] = { 0, 1, 2, 3, 4, 5,
                                                                        6, 7, 8, 9 };
    ck_assert_double_le(positions_shuffle_difference(x, w, NULL, order), 1e-5);
    ck_assert_double_gt(positions_shuffle_difference(x, w, mask_causal, order), 0.05);
    ck_assert(positions_shuffle_difference(x, w, mask_causal, same) == 0.0);
    matrix_free(&x);
    head_weights_free(&w);
}
END_TEST

/* The code of Vaswani et al., written as the paper writes it: sin(pos / 10000^(2i/d)). */
START_TEST(the_sinusoidal_code_is_its_closed_form)
{
    Matrix64 p = matrix_new64(50, 12);
    positions_sinusoidal(p, 7, 10000.0);
    for (int t = 0; t < 50; t++)
        for (int i = 0; i < 6; i++) {
            const double angle = (7.0 + t) / pow(10000.0, 2.0 * i / 12.0);
            ck_assert_double_eq_tol(AT(p, t, 2 * i), sin(angle), 1e-12);
            ck_assert_double_eq_tol(AT(p, t, 2 * i + 1), cos(angle), 1e-12);
        }
    matrix_free64(&p);
}
END_TEST

/* Moving k places is one rotation of each pair, whatever the position; the dot product of
 * two codes is sum_i cos(k w_i), a function of the offset alone. */
START_TEST(a_sinusoidal_offset_is_a_rotation)
{
    const int d = 16, k = 5;
    Matrix64 p = matrix_new64(60, d);
    positions_sinusoidal(p, 0, 10000.0);
    for (int t = 0; t + k < 60; t++) {
        double dot = 0.0, expected = 0.0;
        for (int i = 0; i < d / 2; i++) {
            const double w = positions_frequency(i, d, 10000.0), c = cos(k * w),
                         s = sin(k * w);
            ck_assert_double_eq_tol(AT(p, t + k, 2 * i),
                                    c * AT(p, t, 2 * i) + s * AT(p, t, 2 * i + 1), 1e-12);
            ck_assert_double_eq_tol(AT(p, t + k, 2 * i + 1),
                                    -s * AT(p, t, 2 * i) + c * AT(p, t, 2 * i + 1), 1e-12);
            expected += c;
        }
        for (int c = 0; c < d; c++)
            dot += AT(p, t, c) * AT(p, t + k, c);
        ck_assert_double_eq_tol(dot, expected, 1e-12);
    }
    matrix_free64(&p);
}
END_TEST

/* The slopes of the authors' code (github.com/ofirpress/attention_with_linear_biases). */
START_TEST(alibi_has_the_published_slopes)
{
    double s[12];
    alibi_slopes(8, s);
    for (int h = 0; h < 8; h++)
        ck_assert_double_eq_tol(s[h], 1.0 / (double)(2 << h), 1e-15);
    alibi_slopes(1, s);
    ck_assert_double_eq_tol(s[0], 1.0 / 256, 1e-15);
    alibi_slopes(4, s);
    ck_assert_double_eq_tol(s[0], 0.25, 1e-15);
    ck_assert_double_eq_tol(s[3], 1.0 / 256, 1e-15);
    /* 12 heads: the 8 of 8 heads, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (of 16, every other) */
    alibi_slopes(12, s);
    for (int h = 0; h < 8; h++)
        ck_assert_double_eq_tol(s[h], 1.0 / (double)(2 << h), 1e-15);
    for (int h = 8; h < 12; h++)
        ck_assert_double_eq_tol(s[h], pow(2.0, -0.5 - (h - 8)), 1e-15);
}
END_TEST

START_TEST(alibi_is_linear_in_the_distance)
{
    Matrix64 scores = matrix_new64(5, 9);
    for (int e = 0; e < 45; e++)
        scores.data[e] = 0.25 * e;
    alibi_bias(scores, 3, 0.125);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 9; j++)
            ck_assert_double_eq_tol(AT(scores, i, j), 0.25 * (i * 9 + j) -
                                    0.125 * abs(3 + i - j), 1e-15);
    matrix_free64(&scores);
}
END_TEST

START_TEST(the_bag_bound_counts_the_most_frequent_earlier_token)
{
    /* t = 1: bag {2}: 1/1; t = 2: {2, 2}: 2/2; t = 3: {2, 2, 0}: 2/3; t = 4: +1: 2/4 */
    const int tokens[5] = { 2, 2, 0, 1, 3 };
    ck_assert_double_eq_tol(positions_bag_accuracy(tokens, 1, 5, 1, 4, NULL),
                            (1.0 + 1.0 + 2.0 / 3 + 0.5) / 4, 1e-15);
    ck_assert_double_eq_tol(positions_bag_accuracy(tokens, 1, 5, 2, 4, NULL),
                            (1.0 + 2.0 / 3 + 0.5) / 3, 1e-15);
}
END_TEST

static PositionShape small_shape(Encoding e, int positions)
{
    return (PositionShape){ e, 5, 12, 3, positions, 1, false };
}

static PositionModel64 model_of_shape(PositionShape shape, uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed, 1);
    PositionModel64 m = position_model_new64(shape);
    position_model_init64(&m, &rng);
    return m;
}

static PositionModel64 small_model(Encoding e, int positions, uint64_t seed)
{
    return model_of_shape(small_shape(e, positions), seed);
}

/* The float model against its double twin, for every encoding, one and two layers: the same
 * parameters (rounded into float and widened back), the same tokens; the gradients agree to
 * float's rounding, and differ, since the float model computes in float.  RoPE's float turn
 * is the double turn rounded. */
START_TEST(the_float_model_agrees_with_the_double_one_to_float_rounding)
{
    enum { SEQUENCES = 3, LENGTH = 9, BACK = 2 };
    int tokens[SEQUENCES * LENGTH];
    Rng rng;
    rng_seed(&rng, 61, 1);
    positions_draw(&rng, tokens, SEQUENCES * LENGTH, 5);
    for (int c = 0; c < 2 * ENCODINGS; c++) {
        PositionShape shape = { (Encoding)(c % ENCODINGS), 5, 12, 3, 12, 1 + c / ENCODINGS,
                                c / ENCODINGS == 1 };
        PositionModel64 wide = model_of_shape(shape, 62 + (uint64_t)c);
        PositionModel64 wide_grad = position_model_like64(&wide);
        PositionModel32 slim = position_model_new32(shape), slim_grad = position_model_new32(shape);
        KitParam64 p64[POSITION_MATRICES_MAX], g64[POSITION_MATRICES_MAX];
        KitParam32 p32[POSITION_MATRICES_MAX], g32[POSITION_MATRICES_MAX];
        const int count = position_model_params64(&wide, p64);
        position_model_params64(&wide_grad, g64);
        position_model_params32(&slim, p32);
        position_model_params32(&slim_grad, g32);
        kit_narrow(p64, p32, count);
        kit_widen(p32, p64, count);
        const double loss64 =
            position_gradient64(&wide, tokens, SEQUENCES, LENGTH, BACK, &wide_grad);
        const double loss32 =
            position_gradient32(&slim, tokens, SEQUENCES, LENGTH, BACK, &slim_grad);
        ck_assert_double_le(fabs(loss32 - loss64), 1e-5 * loss64);
        const double worst = kit_widths_difference(g32, g64, count);
        ck_assert_msg(worst <= 1e-4 && worst > 0.0, "%s, %d layers: %g",
                      encoding_names[c % ENCODINGS], shape.layers, worst);
        position_model_free64(&wide);
        position_model_free64(&wide_grad);
        position_model_free32(&slim);
        position_model_free32(&slim_grad);
    }
}
END_TEST

/* ALiBi's layer against its definition: each head's scaled scores, biased by alibi_bias with
 * the head's slope, masked and put through the softmax, row by row. */
START_TEST(alibis_layer_biases_the_scores_by_the_slopes)
{
    const int tokens[7] = { 4, 0, 3, 3, 1, 2, 0 }, length = 7, heads = 3, width = 4;
    PositionModel64 m = small_model(ENCODING_ALIBI, 5, 40);
    PositionTrace64 t = position_trace_new64(&m, length, 1);
    position_forward64(&m, tokens, 1, &t);
    double slopes[3];
    alibi_slopes(heads, slopes);
    Matrix64 scores = matrix_new64(length, length);
    for (int h = 0; h < heads; h++) {
        for (int i = 0; i < length; i++)
            for (int j = 0; j < length; j++) {
                double dot = 0.0;
                for (int c = h * width; c < (h + 1) * width; c++)
                    dot += AT(t.work.trace[0].q, i, c) * AT(t.work.trace[0].k, j, c);
                AT(scores, i, j) = dot / sqrt((double)width);
            }
        alibi_bias(scores, 0, slopes[h]);
        for (int i = 0; i < length; i++) {
            for (int j = i + 1; j < length; j++)
                AT(scores, i, j) = -INFINITY;
            softmax_row64(&AT(scores, i, 0), length);
            for (int j = 0; j < length; j++)
                ck_assert_double_eq_tol(AT(t.work.trace[0].weights, h * length + i, j),
                                        AT(scores, i, j), 1e-15);
        }
    }
    matrix_free64(&scores);
    position_trace_free64(&t);
    position_model_free64(&m);
}
END_TEST

/* Every encoding's backward pass against central differences, in double, in every shape: the
 * experiment's, one wide head with a BOS, and two layers on the residual stream after a BOS.
 * The learned table is shorter than the sequences, so positions past it share its last row. */
START_TEST(every_encoding_passes_the_gradient_check)
{
    int tokens[3 * 7];
    Rng rng;
    rng_seed(&rng, 41, 1);
    positions_draw(&rng, tokens, 3 * 7, 5);
    for (int e = 0; e < ENCODINGS; e++)
        for (int variant = 0; variant < 3; variant++) {
            PositionShape shape = small_shape((Encoding)e, 5);
            shape.n_heads = variant == 1 ? 1 : shape.n_heads;
            shape.layers = variant == 2 ? 2 : 1;
            shape.bos = variant >= 1;
            PositionModel64 m = model_of_shape(shape, 42);
            const double worst = position_gradient_check(&m, tokens, 3, 7, 2, 1e-5);
            ck_assert_msg(worst < 1e-7, "%s, variant %d: %g", encoding_names[e], variant,
                          worst);
            position_model_free64(&m);
        }
}
END_TEST

/* A batch is its sequences side by side: its loss and its gradient are the means of those of
 * its sequences, each taken alone, for every encoding.  Each sequence starts at position 0,
 * so a batch that ran its positions on from one sequence to the next would fail. */
START_TEST(a_batch_is_the_mean_of_its_sequences_taken_alone)
{
    enum { SEQUENCES = 3, LENGTH = 7, BACK = 2 };
    int tokens[SEQUENCES * LENGTH];
    Rng rng;
    rng_seed(&rng, 45, 1);
    positions_draw(&rng, tokens, SEQUENCES * LENGTH, 5);
    for (int e = 0; e < ENCODINGS; e++) {
        PositionModel64 m = small_model((Encoding)e, 5, 46);
        PositionModel64 batch = position_model_like64(&m), alone = position_model_like64(&m);
        KitParam64 whole[POSITION_MATRICES_MAX], part[POSITION_MATRICES_MAX];
        const int count = position_model_params64(&batch, whole);
        position_model_params64(&alone, part);
        const double loss = position_gradient64(&m, tokens, SEQUENCES, LENGTH, BACK, &batch);
        double mean_loss = 0.0;
        for (int s = 0; s < SEQUENCES; s++) {
            mean_loss += position_gradient64(&m, tokens + s * LENGTH, 1, LENGTH, BACK, &alone)
                         / SEQUENCES;
            for (int a = 0; a < count; a++)
                for (int i = 0; i < whole[a].rows * whole[a].cols; i++)
                    whole[a].data[i] -= part[a].data[i] / SEQUENCES;
        }
        ck_assert_double_eq_tol(loss, mean_loss, 1e-12);
        for (int a = 0; a < count; a++)
            for (int i = 0; i < whole[a].rows * whole[a].cols; i++)
                ck_assert_msg(fabs(whole[a].data[i]) < 1e-12, "%s: %s[%d] off by %g",
                              encoding_names[e], whole[a].name, i, whole[a].data[i]);
        position_model_free64(&batch);
        position_model_free64(&alone);
        position_model_free64(&m);
    }
}
END_TEST

/* The five models of the experiment start from the same embeddings and weights: only the
 * learned one has a table, and it is drawn from a stream of its own. */
START_TEST(every_encoding_starts_from_the_same_weights)
{
    PositionModel64 none = small_model(ENCODING_NONE, 5, 47);
    KitParam64 first[POSITION_MATRICES_MAX];
    const int count = position_model_params64(&none, first);
    for (int e = 1; e < ENCODINGS; e++) {
        PositionModel64 m = small_model((Encoding)e, 5, 47);
        KitParam64 list[POSITION_MATRICES_MAX];
        ck_assert_int_eq(position_model_params64(&m, list), count);
        for (int a = 0; a < count; a++) {
            if (list[a].data == m.table.data)
                continue;                   /* the table, which only the learned model has */
            ck_assert_int_eq(list[a].rows * list[a].cols, first[a].rows * first[a].cols);
            ck_assert_msg(memcmp(list[a].data, first[a].data, sizeof(double)
                                 * (size_t)(list[a].rows * list[a].cols)) == 0,
                          "%s: %s differs", encoding_names[e], list[a].name);
        }
        position_model_free64(&m);
    }
    position_model_free64(&none);
}
END_TEST

/* A copy (the control of the position interpolation) has every parameter of the original,
 * bit for bit, and the same turn, so the same loss; its numbers are its own: changing the
 * copy leaves the original as it was.  The learned model, whose table has rows, and a
 * stretched RoPE model are copied. */
START_TEST(a_copy_has_the_same_parameters_and_turn_in_storage_of_its_own)
{
    enum { LENGTH = 7, BACK = 1 };
    int tokens[LENGTH] = { 3, 1, 4, 1, 0, 2, 4 };
    const Encoding kinds[2] = { ENCODING_LEARNED, ENCODING_ROPE };
    for (int e = 0; e < 2; e++) {
        PositionModel64 m = small_model(kinds[e], LENGTH, 53);
        m.rope.stretch = 0.25;
        PositionModel64 copy = position_model_copy64(&m);
        KitParam64 from[POSITION_MATRICES_MAX], to[POSITION_MATRICES_MAX];
        const int count = position_model_params64(&m, from);
        ck_assert_int_eq(position_model_params64(&copy, to), count);
        for (int a = 0; a < count; a++) {
            const size_t n = (size_t)from[a].rows * (size_t)from[a].cols;
            ck_assert_int_eq(to[a].rows * to[a].cols, (int)n);
            ck_assert(n == 0 || memcmp(to[a].data, from[a].data, n * sizeof(double)) == 0);
            ck_assert(n == 0 || to[a].data != from[a].data);
        }
        ck_assert(kinds[e] != ENCODING_LEARNED || m.table.rows > 0);
        ck_assert_double_eq(copy.rope.stretch, 0.25);
        const double loss = position_loss64(&m, tokens, 1, LENGTH, BACK);
        ck_assert_double_eq(position_loss64(&copy, tokens, 1, LENGTH, BACK), loss);
        copy.embed.data[0] += 1.0;
        ck_assert_double_eq(position_loss64(&m, tokens, 1, LENGTH, BACK), loss);
        position_model_free64(&copy);
        position_model_free64(&m);
    }
}
END_TEST

/* The check can fail: a model whose backward pass is told another encoding than its forward
 * pass used (RoPE's gradient without RoPE's turn undone) is caught. */
START_TEST(the_gradient_check_catches_a_wrong_backward_pass)
{
    int tokens[2 * 6];
    Rng rng;
    rng_seed(&rng, 43, 1);
    positions_draw(&rng, tokens, 2 * 6, 5);
    PositionModel64 m = small_model(ENCODING_ROPE, 5, 44);
    PositionTrace64 t = position_trace_new64(&m, 6, 1);
    PositionModel64 right = position_model_like64(&m), wrong = position_model_like64(&m);
    position_gradient64(&m, tokens, 2, 6, 1, &right);
    m.shape.encoding = ENCODING_NONE;   /* the backward pass now skips the undoing turn */
    position_forward64(&m, tokens, 1, &t);
    m.shape.encoding = ENCODING_ROPE;
    position_backward64(&m, tokens, 1, &t, 1.0, &wrong);
    ck_assert_double_gt(relative_difference(right.stack.layer[0].w_query.data,
                                            wrong.stack.layer[0].w_query.data, 144), 1e-3);
    position_trace_free64(&t);
    position_model_free64(&right);
    position_model_free64(&wrong);
    position_model_free64(&m);
}
END_TEST

/* Without an encoding, the answer at t depends on the bag of tokens 0 .. t - 1, not on their
 * order: shuffling them leaves the distribution at t unchanged, up to rounding. */
START_TEST(without_an_encoding_the_answer_ignores_the_order_before_it)
{
    const int tokens[8] = { 1, 4, 4, 0, 2, 3, 1, 2 }, shuffled[8] = { 4, 2, 1, 3, 0, 4, 1, 2 };
    PositionModel64 m = small_model(ENCODING_NONE, 5, 45);
    PositionTrace64 a = position_trace_new64(&m, 8, 1), b = position_trace_new64(&m, 8, 1);
    position_forward64(&m, tokens, 1, &a);
    position_forward64(&m, shuffled, 1, &b);
    /* positions 6 and 7 see the same bag before them and the same own token */
    for (int t = 6; t < 8; t++)
        ck_assert_double_le(relative_difference(&AT(a.p, t, 0), &AT(b.p, t, 0), 5), 1e-13);
    ck_assert_double_gt(relative_difference(&AT(a.p, 5, 0), &AT(b.p, 5, 0), 5), 1e-6);
    m.shape.encoding = ENCODING_ROPE;   /* with positions, the order matters */
    position_forward64(&m, tokens, 1, &a);
    position_forward64(&m, shuffled, 1, &b);
    ck_assert_double_gt(relative_difference(&AT(a.p, 7, 0), &AT(b.p, 7, 0), 5), 1e-6);
    position_trace_free64(&a);
    position_trace_free64(&b);
    position_model_free64(&m);
}
END_TEST

/* A softmax average sees proportions, not counts: without positions, the last output after
 * {a, b} equals that after {a, b, a, b}.  A BOS gives one layer the count: after it, the two
 * differ.  Either way the order before a position is not seen: shuffling it changes nothing. */
START_TEST(one_layer_sees_proportions_and_a_bos_gives_it_the_count)
{
    const int pair[2] = { 3, 1 }, twice[4] = { 3, 1, 3, 1 }, swapped[4] = { 1, 3, 3, 1 };
    for (int bos = 0; bos <= 1; bos++) {
        PositionShape shape = small_shape(ENCODING_NONE, 5);
        shape.bos = bos;
        PositionModel64 m = model_of_shape(shape, 50);
        PositionTrace64 a = position_trace_new64(&m, 2, 1), b = position_trace_new64(&m, 4, 1),
                      c = position_trace_new64(&m, 4, 1);
        position_forward64(&m, pair, 1, &a);
        position_forward64(&m, twice, 1, &b);
        position_forward64(&m, swapped, 1, &c);
        const double *after_pair = &AT(a.p, a.span - 1, 0),
                     *after_twice = &AT(b.p, b.span - 1, 0);
        if (bos)
            ck_assert_double_gt(relative_difference(after_pair, after_twice, 5), 1e-6);
        else
            ck_assert_double_le(relative_difference(after_pair, after_twice, 5), 1e-13);
        ck_assert_double_le(relative_difference(after_twice, &AT(c.p, c.span - 1, 0), 5),
                            1e-13);
        position_trace_free64(&a);
        position_trace_free64(&b);
        position_trace_free64(&c);
        position_model_free64(&m);
    }
}
END_TEST

/* With W_Q = 0 every score is 0, and a causal head gives each of the i + 1 keys of query i
 * the weight 1/(i + 1): the mean weight at offset k is the mean of 1/(i + 1) over i >= k. */
START_TEST(uniform_heads_weigh_an_offset_by_the_mean_of_their_weights)
{
    enum { LENGTH = 9, SEQUENCES = 3 };
    int tokens[SEQUENCES * LENGTH];
    Rng rng;
    rng_seed(&rng, 53, 1);
    positions_draw(&rng, tokens, SEQUENCES * LENGTH, 5);
    PositionModel64 m = small_model(ENCODING_NONE, 5, 54);
    matrix_zero64(m.stack.layer[0].w_query);
    Matrix64 weight = matrix_new64(3, LENGTH);
    position_attention_by_offset(&m, tokens, SEQUENCES, LENGTH, weight);
    for (int k = 0; k < LENGTH; k++) {
        double mean = 0.0;
        for (int i = k; i < LENGTH; i++)
            mean += 1.0 / (i + 1) / (LENGTH - k);
        for (int h = 0; h < 3; h++)
            ck_assert_double_eq_tol(AT(weight, h, k), mean, 1e-14);
    }
    matrix_free64(&weight);
    position_model_free64(&m);
}
END_TEST

/* The accuracy at each position, with and without a BOS, against the obvious count: each
 * sequence's distributions, read at the row of position q (one further down after a BOS);
 * positions without a question get 0, and the mean over the questions is the accuracy. */
START_TEST(the_accuracy_by_position_counts_the_right_answers_at_each_position)
{
    enum { LENGTH = 9, SEQUENCES = 7, BACK = 2 };
    int tokens[SEQUENCES * LENGTH];
    Rng rng;
    rng_seed(&rng, 55, 1);
    positions_draw(&rng, tokens, SEQUENCES * LENGTH, 5);
    for (int bos = 0; bos <= 1; bos++) {
        PositionShape shape = small_shape(ENCODING_ROPE, 5);
        shape.bos = bos;
        PositionModel64 m = model_of_shape(shape, 56);
        PositionTrace64 t = position_trace_new64(&m, LENGTH, 1);
        double right_at[LENGTH], counted[LENGTH] = { 0.0 }, mean = 0.0;
        const double all = position_accuracy(&m, tokens, SEQUENCES, LENGTH, BACK, right_at);
        for (int s = 0; s < SEQUENCES; s++) {
            position_forward64(&m, tokens + s * LENGTH, BACK, &t);
            for (int q = BACK; q < LENGTH; q++) {
                int best = 0;
                for (int o = 1; o < 5; o++)
                    best = AT(t.p, q + bos, o) > AT(t.p, q + bos, best) ? o : best;
                counted[q] += (best == tokens[s * LENGTH + q - BACK]) / (double)SEQUENCES;
            }
        }
        for (int q = 0; q < LENGTH; q++) {
            ck_assert_double_eq_tol(right_at[q], counted[q], 1e-15);
            mean += right_at[q] / (LENGTH - BACK);
        }
        ck_assert_double_eq_tol(mean, all, 1e-14);
        position_trace_free64(&t);
        position_model_free64(&m);
    }
}
END_TEST

/* Whatever training does, a model without positions cannot beat the best order-blind guess
 * by more than the sampling noise of the test (the bound is exact in expectation; 1200
 * questions put its standard error near 1.4 points, and the margin is 5). */
START_TEST(a_model_without_positions_stays_under_the_bag_bound)
{
    enum { SEQUENCES = 100, LENGTH = 13 };
    PositionModel64 m = small_model(ENCODING_NONE, 5, 46);
    Rng rng;
    rng_seed(&rng, 47, 1);
    position_train64(&m, &rng, 150, 8, LENGTH, 1, 0.02);
    int tokens[SEQUENCES * LENGTH];
    positions_draw(&rng, tokens, SEQUENCES * LENGTH, 5);
    const double accuracy = position_accuracy(&m, tokens, SEQUENCES, LENGTH, 1, NULL);
    const double bound = positions_bag_accuracy(tokens, SEQUENCES, LENGTH, 1, 5, NULL);
    ck_assert_double_le(accuracy, bound + 0.05);
    ck_assert_double_gt(bound, 1.0 / 5);
    position_model_free64(&m);
}
END_TEST

/* Adam's first step moves every parameter with a gradient by the rate, against the sign of
 * its gradient, whatever the gradient's size. */
START_TEST(adams_first_step_moves_each_parameter_by_the_rate)
{
    PositionModel64 m = small_model(ENCODING_LEARNED, 4, 48), before = small_model(
                          ENCODING_LEARNED, 4, 48);
    PositionModel64 grad = position_model_like64(&m);
    KitParam64 g[POSITION_MATRICES_MAX], w[POSITION_MATRICES_MAX], w0[POSITION_MATRICES_MAX];
    const int count = position_model_params64(&grad, g);
    position_model_params64(&m, w);
    position_model_params64(&before, w0);
    for (int a = 0; a < count; a++)
        for (int e = 0; e < g[a].rows * g[a].cols; e++)
            g[a].data[e] = (e % 3 - 1) * pow(10.0, e % 5 - 2);
    KitAdam64 adam = kit_adam_new64(w, count, 0.01);
    kit_adam_step64(&adam, w, g);
    for (int a = 0; a < count; a++)
        for (int e = 0; e < g[a].rows * g[a].cols; e++) {
            const double sign = (g[a].data[e] > 0) - (g[a].data[e] < 0);
            ck_assert_double_eq_tol(w[a].data[e], w0[a].data[e] - 0.01 * sign, 1e-8);
        }
    kit_adam_free64(&adam);
    PositionModel64 *all[] = { &m, &before, &grad };
    for (int a = 0; a < 3; a++)
        position_model_free64(all[a]);
}
END_TEST

START_TEST(alibi_refuses_a_negative_slope)
{
    Matrix64 s = matrix_new64(2, 2);
    alibi_bias(s, 0, -0.5);
    matrix_free64(&s);
}
END_TEST

START_TEST(alibi_slopes_refuse_zero_heads)
{
    double s[1];
    alibi_slopes(0, s);
}
END_TEST

START_TEST(the_model_refuses_an_odd_head_width)
{
    PositionModel64 m = position_model_new64((PositionShape){ ENCODING_ROPE, 5, 9, 3, 4, 1,
                                                          false });
    position_model_free64(&m);
}
END_TEST

START_TEST(the_bag_bound_refuses_a_question_zero_places_back)
{
    const int tokens[4] = { 0, 1, 2, 3 };
    positions_bag_accuracy(tokens, 1, 4, 0, 4, NULL);
}
END_TEST

START_TEST(the_forward_pass_refuses_a_token_outside_the_vocabulary)
{
    const int tokens[4] = { 0, 1, 5, 3 };
    PositionModel64 m = small_model(ENCODING_NONE, 5, 49);
    PositionTrace64 t = position_trace_new64(&m, 4, 1);
    position_forward64(&m, tokens, 1, &t);
    position_trace_free64(&t);
    position_model_free64(&m);
}
END_TEST

Suite *positions_suite(void)
{
    Suite *suite = suite_create("positions");
    TCase *rope = tcase_create("rope");
    tcase_add_test(rope, rope_turns_each_pair_by_its_rotation_matrix);
    tcase_add_test(rope, rope_at_position_zero_changes_nothing);
    tcase_add_test(rope, rope_scores_depend_only_on_the_offset);
    tcase_add_test(rope, rope_keeps_norms_and_undo_turns_back);
    tcase_add_test(rope, rope_layouts_agree_after_reordering);
    tcase_add_test(rope, rope_from_a_first_position_equals_the_rows_of_a_longer_matrix);
    tcase_add_test(rope, a_stretched_turn_is_the_turn_of_the_stretched_position);
    suite_add_tcase(suite, rope);
    TCase *core = tcase_create("encodings");
    tcase_add_test(core, shuffling_moves_the_outputs_only_without_the_mask);
    tcase_add_test(core, the_sinusoidal_code_is_its_closed_form);
    tcase_add_test(core, a_sinusoidal_offset_is_a_rotation);
    tcase_add_test(core, alibi_has_the_published_slopes);
    tcase_add_test(core, alibi_is_linear_in_the_distance);
    suite_add_tcase(suite, core);
    TCase *model = tcase_create("model");
    tcase_add_test(model, the_bag_bound_counts_the_most_frequent_earlier_token);
    tcase_add_test(model, alibis_layer_biases_the_scores_by_the_slopes);
    tcase_add_test(model, every_encoding_passes_the_gradient_check);
    tcase_add_test(model, the_float_model_agrees_with_the_double_one_to_float_rounding);
    tcase_add_test(model, the_gradient_check_catches_a_wrong_backward_pass);
    tcase_add_test(model, a_batch_is_the_mean_of_its_sequences_taken_alone);
    tcase_add_test(model, every_encoding_starts_from_the_same_weights);
    tcase_add_test(model, a_copy_has_the_same_parameters_and_turn_in_storage_of_its_own);
    tcase_add_test(model, without_an_encoding_the_answer_ignores_the_order_before_it);
    tcase_add_test(model, one_layer_sees_proportions_and_a_bos_gives_it_the_count);
    tcase_add_test(model, uniform_heads_weigh_an_offset_by_the_mean_of_their_weights);
    tcase_add_test(model, the_accuracy_by_position_counts_the_right_answers_at_each_position);
    tcase_add_test(model, a_model_without_positions_stays_under_the_bag_bound);
    tcase_add_test(model, adams_first_step_moves_each_parameter_by_the_rate);
    suite_add_tcase(suite, model);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, rope_refuses_an_odd_head_width, SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_heads_that_do_not_tile_the_row,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_a_negative_position, SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_a_base_of_one, SIGABRT);
    tcase_add_test_raise_signal(refused, alibi_refuses_a_negative_slope, SIGABRT);
    tcase_add_test_raise_signal(refused, alibi_slopes_refuse_zero_heads, SIGABRT);
    tcase_add_test_raise_signal(refused, the_model_refuses_an_odd_head_width, SIGABRT);
    tcase_add_test_raise_signal(refused, the_bag_bound_refuses_a_question_zero_places_back,
                                SIGABRT);
    tcase_add_test_raise_signal(refused,
                                the_forward_pass_refuses_a_token_outside_the_vocabulary,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
