/* Tests of the induction module (chapter 12): the layer with a zero bias against the layer without
 * and against the closed form of a bias alone, the whole model's gradient against central
 * differences, the float gradient against the double one, the batch's gradient against the sum of single sequences on any number of
 * threads, shards used again against fresh ones, Adam's first step, the loss falling over a few steps, the data, and the hand-built
 * induction circuit, which copies, scores as it should, and stops copying when its
 * previous-token head is ablated; and the trained model's decoding with chapter 11's caches,
 * which gives the full pass's probabilities, and with eight bits stays within chapter 11's
 * bound; and the repeated-tokens test: the draw, the hand-built head found, a model of zeros
 * as the uniform head, the local control scoring 0; the flat ceiling against a count by hand
 * and against the flat circuit's measured score; the bias's window against closed forms; the
 * composition score of aligned flat maps, 1/sqrt(k), and the random baseline against a slow
 * recomputation and against 1/sqrt(d). */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "induction.h"
#include "refusal.h"

static InductionModel64 random_model(InductionShape s, uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed, 1);
    InductionModel64 m = induction_new64(s);
    induction_init64(&m, &rng);
    KitParam64 list[INDUCTION_MATRICES];
    induction_params64(&m, list);
    for (int p = 0; p < INDUCTION_MATRICES; p++)     /* the biases, which start at 0 */
        if (list[p].role == KIT_BIAS)
            for (int e = 0; e < list[p].rows * list[p].cols; e++)
                list[p].data[e] = rng_normal(&rng);
    return m;
}

static int *draw_batch(InductionShape s, int n, int shortest, uint64_t seed, int *repeat)
{
    Rng rng;
    rng_seed(&rng, seed, 2);
    int *tokens = malloc(sizeof *tokens * (size_t)n * (size_t)s.length);
    for (int b = 0; b < n; b++) {
        const int r = induction_draw(&rng, s.vocab, s.length, shortest, &tokens[b * s.length]);
        if (repeat != NULL)
            repeat[b] = r;
    }
    return tokens;
}

START_TEST(layer_with_a_zero_bias_is_the_layer_without_one)
{
    const InductionShape s = { 7, 9, 12, 3 };
    InductionModel64 m = random_model(s, 3);
    Rng rng;
    rng_seed(&rng, 4, 1);
    Matrix64 x = matrix_new64(9, 12), mine = matrix_new64(9, 12), theirs = matrix_new64(9, 12);
    for (int e = 0; e < 9 * 12; e++)
        x.data[e] = rng_normal(&rng);
    Matrix64 zero = matrix_new64(3, 9);
    MultiHeadTrace64 t1 = multihead_trace_new64(&m.stack.layer[0], 9, 1),
                     t2 = multihead_trace_new64(&m.stack.layer[0], 9, 1);
    LayerOptions64 with_zero = kit_stack_layer64(&m.stack, 0), without = with_zero;
    with_zero.bias = zero;
    without.bias = (Matrix64){ 0, 0, NULL };
    multihead_forward64(&m.stack.layer[0], with_zero, x, &t1, mine);
    multihead_forward64(&m.stack.layer[0], without, x, &t2, theirs);
    ck_assert_double_eq(matrix64_largest_difference(mine, theirs), 0.0);
    ck_assert_double_eq(matrix64_largest_difference(t1.weights, t2.weights), 0.0);
    multihead_trace_free64(&t1);
    multihead_trace_free64(&t2);
    Matrix64 *all[] = { &x, &mine, &theirs, &zero };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
    induction_free64(&m);
}
END_TEST

START_TEST(a_bias_alone_gives_its_softmax_by_distance)
{
    const InductionShape s = { 4, 6, 4, 2 };
    InductionModel64 m = induction_new64(s);        /* all weights 0: every score is 0 */
    Matrix64 x = matrix_new64(6, 4), y = matrix_new64(6, 4);
    for (int e = 0; e < 4 * 6; e++)
        x.data[e] = 1.0;
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 6; k++)
            AT(m.stack.bias[0], h, k) = 0.5 * k - h;
    MultiHeadTrace64 t = multihead_trace_new64(&m.stack.layer[0], 6, 1);
    multihead_forward64(&m.stack.layer[0], kit_stack_layer64(&m.stack, 0), x, &t, y);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 6; i++) {
            double total = 0.0;
            for (int j = 0; j <= i; j++)
                total += exp(AT(m.stack.bias[0], h, i - j));
            for (int j = 0; j < 6; j++) {
                const double expected = j > i ? 0.0 : exp(AT(m.stack.bias[0], h, i - j)) / total;
                ck_assert_double_eq_tol(AT(t.weights, h * 6 + i, j), expected, 1e-14);
            }
        }
    multihead_trace_free64(&t);
    matrix_free64(&x);
    matrix_free64(&y);
    induction_free64(&m);
}
END_TEST

START_TEST(gradient_matches_central_differences)
{
    const InductionShape shapes[] = { { 5, 6, 8, 2 }, { 4, 8, 6, 1 }, { 6, 7, 9, 3 } };
    for (int k = 0; k < 3; k++) {
        InductionModel64 m = random_model(shapes[k], 10 + (uint64_t)k);
        int *batch = draw_batch(shapes[k], 3, 2, 20 + (uint64_t)k, NULL);
        const double worst = induction_gradient_check(&m, batch, 3, 1e-5).worst;
        ck_assert_double_le(worst, 1e-6);
        free(batch);
        induction_free64(&m);
    }
}
END_TEST

START_TEST(the_float_gradient_agrees_with_the_double_one_to_float_rounding)
{
    const InductionShape s = { 11, 21, 24, 3 };
    InductionModel64 m = random_model(s, 17);
    int *batch = draw_batch(s, 5, 3, 18, NULL);
    const double gap = induction_float_gradient_difference(&m, batch, 5);
    ck_assert_double_le(gap, 1e-4);
    ck_assert_double_gt(gap, 0.0);
    InductionModel32 narrow = induction_new32(s);
    InductionModel64 back = induction_new64(s);
    induction_narrow(&m, &narrow);
    induction_widen(&narrow, &back);
    const double loss64 = induction_loss(&back, batch, 5);
    InductionWork32 w = induction_work_new32(s, 5);
    const double loss32 = induction_forward32(&narrow, batch, &w);
    ck_assert_double_le(fabs(loss32 - loss64), 1e-5 * loss64);
    induction_work_free32(&w);
    induction_free32(&narrow);
    induction_free64(&back);
    induction_free64(&m);
    free(batch);
}
END_TEST

START_TEST(batch_gradient_is_the_mean_of_single_gradients_on_any_threads)
{
    const InductionShape s = { 6, 8, 8, 2 };
    const int n = 11;
    InductionModel64 m = random_model(s, 5), one = induction_new64(s), sum = induction_new64(s),
                   grad = induction_new64(s), again = induction_new64(s);
    int *batch = draw_batch(s, n, 2, 6, NULL);
    KitParam64 g[INDUCTION_MATRICES], total[INDUCTION_MATRICES], a[INDUCTION_MATRICES],
        single[INDUCTION_MATRICES];
    induction_params64(&grad, g);
    induction_params64(&sum, total);
    induction_params64(&again, a);
    induction_params64(&one, single);
    for (int b = 0; b < n; b++) {
        induction_gradient64(&m, &batch[b * s.length], 1, &one, NULL);
        for (int p = 0; p < INDUCTION_MATRICES; p++)
            for (int e = 0; e < single[p].rows * single[p].cols; e++)
                total[p].data[e] += single[p].data[e] / n;
    }
    omp_set_num_threads(1);
    induction_gradient64(&m, batch, n, &grad, NULL);
    omp_set_num_threads(2);
    induction_gradient64(&m, batch, n, &again, NULL);
    for (int p = 0; p < INDUCTION_MATRICES; p++) {
        for (int e = 0; e < g[p].rows * g[p].cols; e++)
            ck_assert_double_eq_tol(g[p].data[e], total[p].data[e], 1e-13);
        ck_assert_int_eq(memcmp(g[p].data, a[p].data,
                                sizeof(double) * (size_t)(g[p].rows * g[p].cols)), 0);
    }
    free(batch);
    InductionModel64 *all[] = { &m, &one, &sum, &grad, &again };
    for (int k = 0; k < 5; k++)
        induction_free64(all[k]);
}
END_TEST

/* Shards made once and used for step after step give each step's gradient and loss, to the
 * last bit, as shards made for that step alone, and each step's phases fit in its shards'
 * time: nothing of a step, not even a clock, is left for the next. */
START_TEST(shards_used_again_give_the_gradient_of_fresh_ones)
{
    const InductionShape s = { 6, 8, 8, 2 };
    const int n = 11;
    InductionModel64 m = random_model(s, 9), fresh = induction_new64(s),
                   reused = induction_new64(s);
    InductionShards64 shards = induction_shards_new64(s, n);
    KitParam64 f[INDUCTION_MATRICES], r[INDUCTION_MATRICES];
    induction_params64(&fresh, f);
    induction_params64(&reused, r);
    for (int step = 0; step < 3; step++) {
        int *batch = draw_batch(s, n, 2, 20 + step, NULL);
        InductionTimes once = { { 0.0 }, 0.0, 0.0 }, again = { { 0.0 }, 0.0, 0.0 };
        const double expected = induction_gradient64(&m, batch, n, &fresh, &once);
        const double loss = induction_gradient_in64(&shards, &m, batch, &reused, &again);
        ck_assert_double_eq(loss, expected);
        for (int p = 0; p < INDUCTION_MATRICES; p++)
            ck_assert_int_eq(memcmp(f[p].data, r[p].data,
                                    sizeof(double) * (size_t)(f[p].rows * f[p].cols)), 0);
        double phases = 0.0;            /* parts of the shards' time, if the clocks restart */
        for (int f = 0; f < INDUCTION_PHASES; f++)
            phases += again.phase[f];
        ck_assert_double_le(phases, again.shards + 1e-9);
        free(batch);
    }
    induction_shards_free64(&shards);
    InductionModel64 *all[] = { &m, &fresh, &reused };
    for (int k = 0; k < 3; k++)
        induction_free64(all[k]);
}
END_TEST

START_TEST(adam_first_step_moves_every_weight_by_the_rate)
{
    const InductionShape s = { 5, 6, 8, 2 };
    InductionModel64 m = random_model(s, 7), before = induction_new64(s), grad = induction_new64(s);
    induction_copy64(&m, &before);
    int *batch = draw_batch(s, 4, 2, 8, NULL);
    induction_gradient64(&m, batch, 4, &grad, NULL);
    KitParam64 now[INDUCTION_MATRICES], was[INDUCTION_MATRICES], g[INDUCTION_MATRICES];
    induction_params64(&m, now);
    induction_params64(&before, was);
    induction_params64(&grad, g);
    KitAdam64 adam = kit_adam_new64(now, INDUCTION_MATRICES, 0.01);
    kit_adam_step64(&adam, now, g);
    for (int p = 0; p < INDUCTION_MATRICES; p++)
        for (int e = 0; e < now[p].rows * now[p].cols; e++) {
            const double gradient = g[p].data[e], moved = now[p].data[e] - was[p].data[e];
            if (fabs(gradient) > 1e-5)      /* far above epsilon: a step of -rate sign(g) */
                ck_assert_double_eq_tol(moved, gradient > 0 ? -0.01 : 0.01, 1e-5);
            else if (gradient == 0.0)
                ck_assert_double_eq(moved, 0.0);
        }
    free(batch);
    kit_adam_free64(&adam);
    induction_free64(&m);
    induction_free64(&before);
    induction_free64(&grad);
}
END_TEST

START_TEST(loss_falls_over_a_few_steps)
{
    const InductionShape s = { 8, 10, 8, 2 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        InductionModel64 m = random_model(s, seed), grad = induction_new64(s);
        int *batch = draw_batch(s, 8, 2, seed + 100, NULL);
        KitParam64 weights[INDUCTION_MATRICES], gradient[INDUCTION_MATRICES];
        induction_params64(&m, weights);
        induction_params64(&grad, gradient);
        KitAdam64 adam = kit_adam_new64(weights, INDUCTION_MATRICES, 0.003);
        const double first = induction_gradient64(&m, batch, 8, &grad, NULL);
        for (int step = 0; step < 10; step++) {
            kit_adam_step64(&adam, weights, gradient);
            induction_gradient64(&m, batch, 8, &grad, NULL);
        }
        ck_assert_double_lt(induction_loss(&m, batch, 8), first);
        free(batch);
        kit_adam_free64(&adam);
        induction_free64(&m);
        induction_free64(&grad);
    }
}
END_TEST

START_TEST(draw_repeats_a_segment_of_every_allowed_length)
{
    Rng rng;
    rng_seed(&rng, 9, 1);
    int tokens[20], seen[11] = { 0 };
    for (int trial = 0; trial < 2000; trial++) {
        const int r = induction_draw(&rng, 5, 20, 4, tokens);
        ck_assert_int_ge(r, 4);
        ck_assert_int_le(r, 10);
        seen[r]++;
        for (int t = 0; t < 20; t++) {
            ck_assert(tokens[t] >= 0 && tokens[t] < 5);
            if (t >= 20 - r)
                ck_assert_int_eq(tokens[t], tokens[t - r]);
        }
    }
    for (int r = 4; r <= 10; r++)
        ck_assert_int_gt(seen[r], 200);     /* about 286 each */
}
END_TEST

/* Sequences whose segment has no repeated token, so that the circuit's every answer is
   determined: the segment is the first r of a shuffled vocabulary. */
static void distinct_sequences(InductionShape s, int n, int *tokens, int *repeat)
{
    Rng rng;
    rng_seed(&rng, 12, 1);
    for (int b = 0; b < n; b++) {
        int *x = &tokens[b * s.length], order[64];
        const int r = 3 + b % (s.length / 2 - 2);
        for (int v = 0; v < s.vocab; v++)
            order[v] = v;
        for (int v = s.vocab - 1; v > 0; v--) {
            const int u = (int)rng_below(&rng, (uint32_t)v + 1), kept = order[v];
            order[v] = order[u], order[u] = kept;
        }
        for (int t = 0; t < s.length - 2 * r; t++)
            x[t] = (int)rng_below(&rng, (uint32_t)s.vocab);
        for (int t = 0; t < r; t++)
            x[s.length - 2 * r + t] = x[s.length - r + t] = order[t];
        repeat[b] = r;
    }
}

START_TEST(hand_built_circuit_copies_and_ablation_stops_it)
{
    const InductionShape s = { 12, 20, 36, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 100.0);
    int tokens[40 * 20], repeat[40];
    distinct_sequences(s, 40, tokens, repeat);
    const InductionEval intact = induction_evaluate(&m, tokens, repeat, 40);
    ck_assert_double_eq(intact.right_second, 1.0);
    ck_assert_double_lt(intact.loss_second, 0.1 * intact.loss_first);
    induction_ablate(&m, 0, 0);
    const InductionEval ablated = induction_evaluate(&m, tokens, repeat, 40);
    ck_assert_double_le(ablated.right_second, 0.1);
    induction_free64(&m);
}
END_TEST

START_TEST(hand_built_scores)
{
    const InductionShape s = { 12, 20, 36, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 100.0);
    int tokens[40 * 20], repeat[40];
    distinct_sequences(s, 40, tokens, repeat);
    double previous[4], induction[4];
    induction_head_scores(&m, tokens, repeat, 40, previous, induction);
    ck_assert_double_gt(previous[0], 0.99);     /* layer 1, head 0 */
    ck_assert_double_gt(induction[2], 0.9);     /* layer 2, head 0 */
    for (int k = 0; k < 4; k++) {
        ck_assert(previous[k] >= 0.0 && previous[k] <= 1.0);
        ck_assert(induction[k] >= 0.0 && induction[k] <= 1.0);
        if (k != 0)
            ck_assert_double_lt(previous[k], 0.5);
        if (k != 2)
            ck_assert_double_lt(induction[k], 0.5);
    }
    induction_free64(&m);
}
END_TEST

static void draw_repeated_batch(int vocab, int length, int copy, int n, uint64_t seed,
                                int *tokens)
{
    int alphabet[64];
    for (int v = 0; v < vocab; v++)
        alphabet[v] = v;
    Rng rng;
    rng_seed(&rng, seed, 7);
    for (int b = 0; b < n; b++)
        induction_draw_repeated(&rng, alphabet, vocab, true, length, copy,
                                &tokens[b * length]);
}

START_TEST(draw_repeated_copies_distinct_tokens_of_the_alphabet)
{
    const int alphabet[] = { 3, 5, 8, 13, 21, 34, 55 }, letters = 7, length = 16;
    Rng rng;
    rng_seed(&rng, 5, 1);
    for (int trial = 0; trial < 200; trial++) {
        const int copy = 1 + trial % letters;
        int x[16];
        induction_draw_repeated(&rng, alphabet, letters, true, length, copy, x);
        for (int t = 0; t < length; t++) {
            bool known = false;
            for (int a = 0; a < letters; a++)
                known = known || x[t] == alphabet[a];
            ck_assert(known);
        }
        for (int t = 0; t < copy; t++) {
            ck_assert_int_eq(x[copy + t], x[t]);
            for (int u = 0; u < t; u++)
                ck_assert_int_ne(x[u], x[t]);
        }
    }
}
END_TEST

START_TEST(the_repeated_tokens_test_finds_the_hand_built_induction_head)
{
    const InductionShape s = { 12, 20, 36, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 100.0);
    int tokens[40 * 20];
    draw_repeated_batch(s.vocab, s.length, 10, 40, 11, tokens);
    double score[4];
    const InductionRepeatLoss loss = induction_repeated_tokens(&m, tokens, 40, 10, score);
    ck_assert_double_lt(loss.second, 0.1 * loss.first);
    ck_assert_double_gt(score[2], 0.9);         /* layer 2, head 0 */
    for (int k = 0; k < 4; k++)
        if (k != 2)
            ck_assert_double_lt(score[k], 0.5);
    induction_free64(&m);
}
END_TEST

/* A model of zeros predicts every token with 1/V and attends evenly: each of its heads is
 * the uniform head, whose score is the mean of 1/(i+1) over the second copy. */
START_TEST(a_model_of_zeros_is_the_uniform_head_and_predicts_nothing)
{
    const InductionShape s = { 12, 20, 8, 2 };
    const int copy = 9;
    InductionModel64 m = induction_new64(s);
    int tokens[10 * 20];
    draw_repeated_batch(s.vocab, s.length, copy, 10, 12, tokens);
    double score[4];
    const InductionRepeatLoss loss = induction_repeated_tokens(&m, tokens, 10, copy, score);
    ck_assert_double_eq_tol(loss.first, log(12.0), 1e-12);
    ck_assert_double_eq_tol(loss.second, log(12.0), 1e-12);
    double closed = 0.0;
    for (int i = copy; i < 2 * copy; i++)
        closed += 1.0 / (i + 1) / copy;
    Matrix64 uniform = matrix_new64(s.length, s.length);
    induction_control_pattern(INDUCTION_UNIFORM_HEAD, uniform);
    ck_assert_double_eq_tol(induction_prefix_matching(uniform, 0, copy), closed, 1e-14);
    for (int k = 0; k < 4; k++)
        ck_assert_double_eq_tol(score[k], closed, 1e-12);
    matrix_free64(&uniform);
    induction_free64(&m);
}
END_TEST

START_TEST(a_local_head_scores_zero_and_a_head_on_the_next_token_one)
{
    const int length = 20;
    Matrix64 local = matrix_new64(length, length), next = matrix_new64(2 * length, length);
    induction_control_pattern(INDUCTION_LOCAL_HEAD, local);
    for (int i = 0; i < length; i++) {
        double row = 0.0;
        for (int j = 0; j < length; j++)
            row += AT(local, i, j);
        ck_assert_double_eq(row, 1.0);
    }
    for (int copy = 3; copy <= length / 2; copy++)
        ck_assert_double_eq(induction_prefix_matching(local, 0, copy), 0.0);
    const int copy = 7, top = 5;            /* a head whose rows start at row 5 */
    for (int i = copy; i < 2 * copy; i++)
        AT(next, top + i, i - copy + 1) = 1.0;
    ck_assert_double_eq(induction_prefix_matching(next, top, copy), 1.0);
    ck_assert_double_eq(induction_prefix_matching(next, 0, copy), 0.0);
    matrix_free64(&local);
    matrix_free64(&next);
}
END_TEST

/* The controls' scores from their patterns: 0 for the local head, the mean of 1/(i+1) over
 * the second copy for the uniform one; a head passes only far above them, with the second
 * copy at most half the first's loss. */
START_TEST(the_controls_score_their_closed_forms_and_the_rule_needs_both_halves)
{
    const int length = 20, copy = 8;
    double uniform = 0.0;
    for (int i = copy; i < 2 * copy; i++)
        uniform += 1.0 / (i + 1) / copy;
    ck_assert_double_eq(
        induction_control_prefix_matching(INDUCTION_LOCAL_HEAD, length, copy), 0.0);
    ck_assert_double_eq_tol(
        induction_control_prefix_matching(INDUCTION_UNIFORM_HEAD, length, copy),
        uniform, 1e-14);
    const InductionRepeatLoss copies = { 2.0, 1.0 }, not_enough = { 2.0, 1.1 };
    ck_assert(induction_passes_repeat(0.2, 0.1, copies));
    ck_assert(!induction_passes_repeat(0.19, 0.1, copies));
    ck_assert(!induction_passes_repeat(0.9, 0.1, not_enough));
    ck_assert(induction_far_above(0.1, 0.0) && !induction_far_above(0.0, 0.0));
}
END_TEST

START_TEST(the_repeated_tokens_test_refuses_a_second_copy_that_differs)
{
    const InductionShape s = { 12, 20, 8, 2 };
    InductionModel64 m = induction_new64(s);
    int tokens[20];
    draw_repeated_batch(s.vocab, s.length, 6, 1, 13, tokens);
    tokens[8] = (tokens[8] + 1) % s.vocab;
    double score[4];
    induction_repeated_tokens(&m, tokens, 1, 6, score);
}
END_TEST

/* The parts' times at the peak add up to the step's operations over the peak, counted as the
 * chapter counts a step; the bound is the part furthest beyond its time at the peak, a part
 * with no operations included. */
START_TEST(the_bound_is_the_part_furthest_beyond_the_peak)
{
    const InductionShape s = { 12, 20, 36, 2 };
    const int B = 8;
    const double T = 20, d = 36, V = 12, seconds = 1e-3, peak = 10.0;
    const double step = 3.0 * 2.0 * B * (2.0 * (4.0 * T * d * d + 2.0 * T * T * d) + T * d * V);
    double share[INDUCTION_PARTS] = { 40.0, 20.0, 10.0, 10.0, 5.0, 15.0 }, at_peak[6];
    int bound = induction_bound(s, B, seconds, peak, share, at_peak);
    double sum = 0.0;
    for (int f = 0; f < INDUCTION_PARTS; f++)
        sum += at_peak[f];
    ck_assert_double_eq_tol(sum, 100.0 * step / (peak * 1e9) / seconds, 1e-9);
    ck_assert_double_eq(at_peak[INDUCTION_SOFTMAX], 0.0);
    /* at the peak: projections 99.5 %, attention 27.6 %, unembedding 4.1 %: the rest of the
     * step, 15 points beyond its none, lies furthest beyond */
    ck_assert_double_eq_tol(at_peak[INDUCTION_PROJECTIONS], 99.5328, 1e-4);
    ck_assert_int_eq(bound, INDUCTION_PARTS - 1);
    share[INDUCTION_SOFTMAX] = 60.0;                /* a part with no operations */
    share[INDUCTION_PROJECTIONS] = 5.0;
    bound = induction_bound(s, B, seconds, peak, share, at_peak);
    ck_assert_int_eq(bound, INDUCTION_SOFTMAX);
}
END_TEST

START_TEST(ablation_zeroes_only_the_heads_rows)
{
    const InductionShape s = { 5, 6, 8, 2 };
    InductionModel64 m = random_model(s, 13), before = induction_new64(s);
    induction_copy64(&m, &before);
    induction_ablate(&m, 1, 1);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            ck_assert_double_eq(AT(m.stack.layer[1].w_out, r, c),
                                r >= 4 ? 0.0 : AT(before.stack.layer[1].w_out, r, c));
    ck_assert_double_eq(matrix64_largest_difference(m.stack.layer[0].w_out, before.stack.layer[0].w_out), 0.0);
    induction_free64(&m);
    induction_free64(&before);
}
END_TEST

START_TEST(new_refuses_heads_that_do_not_divide_the_width)
{
    induction_new64((InductionShape){ 5, 6, 8, 3 });
}
END_TEST

START_TEST(draw_refuses_a_segment_too_long)
{
    Rng rng;
    rng_seed(&rng, 1, 1);
    int tokens[8];
    induction_draw(&rng, 5, 8, 5, tokens);
}
END_TEST

START_TEST(hand_built_refuses_a_narrow_stream)
{
    InductionModel64 m = induction_new64((InductionShape){ 6, 10, 12, 2 });
    induction_hand_built(&m, 10.0);
}
END_TEST

START_TEST(evaluate_refuses_a_segment_longer_than_half)
{
    const InductionShape s = { 5, 6, 8, 2 };
    InductionModel64 m = induction_new64(s);
    int tokens[6] = { 0, 1, 2, 0, 1, 2 }, repeat[1] = { 4 };
    induction_evaluate(&m, tokens, repeat, 1);
}
END_TEST

/* The eigenvalues as a sorted list of (real, imaginary) pairs, for comparison. */
static int by_real_then_imaginary(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0])
        return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static void assert_eigenvalues(Matrix64 a, const double *expected, int n, double tolerance)
{
    double re[8], im[8], got[16], want[16];
    ck_assert(eigenvalues(a, re, im));
    for (int k = 0; k < n; k++) {
        got[2 * k] = round(re[k] / tolerance) * tolerance;
        got[2 * k + 1] = round(im[k] / tolerance) * tolerance;
        want[2 * k] = round(expected[2 * k] / tolerance) * tolerance;
        want[2 * k + 1] = round(expected[2 * k + 1] / tolerance) * tolerance;
    }
    qsort(got, (size_t)n, 2 * sizeof(double), by_real_then_imaginary);
    qsort(want, (size_t)n, 2 * sizeof(double), by_real_then_imaginary);
    for (int k = 0; k < 2 * n; k++)
        ck_assert_msg(fabs(got[k] - want[k]) <= tolerance, "entry %d: %g, not %g", k,
                      got[k], want[k]);
}

/* A triangular matrix's eigenvalues are its diagonal. */
START_TEST(a_triangular_matrix_has_its_diagonal_as_eigenvalues)
{
    Matrix64 a = matrix_new64(5, 5);
    const double diagonal[5] = { 3.0, -1.0, 0.5, 7.0, -2.5 };
    double expected[10];
    for (int i = 0; i < 5; i++) {
        expected[2 * i] = diagonal[i];
        expected[2 * i + 1] = 0.0;
        for (int j = i; j < 5; j++)
            AT(a, i, j) = i == j ? diagonal[i] : 0.3 * (i + 2 * j) - 1.0;
    }
    assert_eigenvalues(a, expected, 5, 1e-9);
    matrix_free64(&a);
}
END_TEST

/* A rotation by theta has the eigenvalues cos theta +- i sin theta; a rotation of the plane
 * beside a scaling of the third axis adds that scale. */
START_TEST(a_rotation_has_a_conjugate_pair_on_the_unit_circle)
{
    const double theta = 0.7;
    Matrix64 a = matrix_new64(3, 3);
    AT(a, 0, 0) = cos(theta);
    AT(a, 0, 1) = -sin(theta);
    AT(a, 1, 0) = sin(theta);
    AT(a, 1, 1) = cos(theta);
    AT(a, 2, 2) = 2.0;
    const double expected[6] = { cos(theta), sin(theta), cos(theta), -sin(theta), 2.0, 0.0 };
    assert_eigenvalues(a, expected, 3, 1e-9);
    matrix_free64(&a);
}
END_TEST

/* The companion matrix of (x - 1)(x - 2)(x - 3)(x^2 + 1) = x^5 - 6x^4 + 12x^3 - 12x^2 + 11x - 6
 * has those five roots, the last two a conjugate pair; a similarity by a dense matrix keeps
 * them, and makes the solver work on a full matrix. */
START_TEST(a_companion_matrix_has_the_roots_of_its_polynomial)
{
    const double coefficients[5] = { -6.0, 11.0, -12.0, 12.0, -6.0 };   /* c0 .. c4 */
    Matrix64 c = matrix_new64(5, 5);
    for (int i = 1; i < 5; i++)
        AT(c, i, i - 1) = 1.0;
    for (int i = 0; i < 5; i++)
        AT(c, i, 4) = -coefficients[i];
    const double expected[10] = { 1, 0, 2, 0, 3, 0, 0, 1, 0, -1 };
    assert_eigenvalues(c, expected, 5, 1e-7);
    /* S = I + upper ones: S^-1 = I - the superdiagonal ... computed as S C S^-1 directly */
    Matrix64 s = matrix_new64(5, 5), inverse = matrix_new64(5, 5), sc = matrix_new64(5, 5),
             similar = matrix_new64(5, 5);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            AT(s, i, j) = j >= i ? 1.0 : 0.0;               /* ones on and above */
            AT(inverse, i, j) = j == i ? 1.0 : j == i + 1 ? -1.0 : 0.0;
        }
    matrix_multiply64(s, c, sc);
    matrix_multiply64(sc, inverse, similar);
    assert_eigenvalues(similar, expected, 5, 1e-7);
    Matrix64 all[5] = { c, s, inverse, sc, similar };
    for (int k = 0; k < 5; k++)
        matrix_free64(&all[k]);
}
END_TEST

/* On a random matrix the eigenvalues sum to the trace, and the imaginary parts cancel. */
START_TEST(random_eigenvalues_sum_to_the_trace)
{
    Rng rng;
    rng_seed(&rng, 60, 1);
    Matrix64 a = matrix_new64(8, 8);
    for (int k = 0; k < 64; k++)
        a.data[k] = rng_normal(&rng);
    double re[8], im[8], trace = 0.0, sum = 0.0, imaginary = 0.0;
    ck_assert(eigenvalues(a, re, im));
    for (int k = 0; k < 8; k++) {
        trace += AT(a, k, k);
        sum += re[k];
        imaginary += im[k];
    }
    ck_assert_double_eq_tol(sum, trace, 1e-10);
    ck_assert_double_eq_tol(imaginary, 0.0, 1e-10);
    matrix_free64(&a);
}
END_TEST

/* The hand-built induction head copies: M = E W_OV U is sharp times the identity, so its
 * copying score is 1 and every row's largest entry is on the diagonal.  Its previous-token head
 * reaches it through the keys only: K-composition 1/sqrt(V), above random matrices of the same
 * shapes, and Q- and V-composition 0. */
START_TEST(the_hand_built_circuit_copies_and_composes_through_its_keys)
{
    const InductionShape s = { 8, 12, 24, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 10.0);
    const InductionCopying c = induction_copying(&m, 1, 0);
    ck_assert_double_eq_tol(c.copying, 1.0, 1e-9);
    ck_assert_double_eq(c.diagonal, 1.0);
    Matrix64 qk1 = matrix_new64(24, 24), ov1 = matrix_new64(24, 24),
             qk2 = matrix_new64(24, 24), ov2 = matrix_new64(24, 24);
    induction_head_circuits(&m, 0, 0, qk1, ov1);
    induction_head_circuits(&m, 1, 0, qk2, ov2);
    const double k = composition_score(ov1, qk2, ov2, COMPOSE_K);
    ck_assert_double_eq_tol(k, 1.0 / sqrt(8.0), 1e-12);
    ck_assert_double_eq_tol(composition_score(ov1, qk2, ov2, COMPOSE_Q), 0.0, 1e-15);
    ck_assert_double_eq_tol(composition_score(ov1, qk2, ov2, COMPOSE_V), 0.0, 1e-15);
    Rng rng;
    rng_seed(&rng, 61, 1);
    ck_assert_double_lt(composition_baseline(s, COMPOSE_K, 50, &rng).largest, k);
    Matrix64 all[4] = { qk1, ov1, qk2, ov2 };
    for (int j = 0; j < 4; j++)
        matrix_free64(&all[j]);
    induction_free64(&m);
}
END_TEST

/* The ceiling counts the matching keys: in 1 2 1 | 1 2 1 the three second-half queries have
 * 2, 1 and 3 keys after an earlier copy of their token, so the ceiling is (1/2 + 1 + 1/3)/3;
 * a segment of distinct tokens has a ceiling of 1. */
START_TEST(the_score_ceiling_spreads_the_weight_over_the_matches)
{
    const int tokens[12] = { 1, 2, 1, 1, 2, 1, 4, 5, 6, 4, 5, 6 }, repeat[2] = { 3, 3 };
    ck_assert_double_eq_tol(induction_score_ceiling(tokens, repeat, 1, 6),
                            (0.5 + 1.0 + 1.0 / 3) / 3, 1e-15);
    ck_assert_double_eq_tol(induction_score_ceiling(tokens + 6, repeat, 1, 6), 1.0, 1e-15);
}
END_TEST

/* The flat ceiling counts only the matches at an admissible distance.  In a d a b c | a b c
 * (T = 8, r = 3, shortest 2, so distances 1 to 3), the repeat's first query, a, has two
 * matching keys: j = 1, four back, and j = 3, two back; only the second is admissible.  So the
 * ceiling is (1/2 + 1 + 1)/3 and the flat ceiling 1. */
START_TEST(the_flat_ceiling_counts_only_the_admissible_matches)
{
    enum { a = 0, b = 1, c = 2, d = 3 };
    const int tokens[8] = { a, d, a, b, c, a, b, c }, repeat[1] = { 3 };
    ck_assert_double_eq_tol(induction_score_ceiling(tokens, repeat, 1, 8),
                            (0.5 + 1.0 + 1.0) / 3, 1e-15);
    ck_assert_double_eq_tol(induction_score_flat_ceiling(tokens, repeat, 1, 8, 2), 1.0,
                            1e-15);
}
END_TEST

/* On the training task's own sequences, sequence by sequence, the flat ceiling is never below
 * the other, and above it somewhere. */
START_TEST(the_flat_ceiling_is_at_least_the_ceiling)
{
    const InductionShape s = { 6, 20, 8, 2 };
    int repeat[300];
    int *tokens = draw_batch(s, 300, 5, 31, repeat);
    int above = 0;
    for (int b = 0; b < 300; b++) {
        const int *x = &tokens[b * s.length];
        const double plain = induction_score_ceiling(x, &repeat[b], 1, s.length),
                     flat = induction_score_flat_ceiling(x, &repeat[b], 1, s.length, 5);
        ck_assert_double_ge(flat, plain - 1e-15);
        ck_assert_double_le(flat, 1.0);
        above += flat > plain + 1e-12;
    }
    ck_assert_int_gt(above, 0);
    free(tokens);
}
END_TEST

/* The circuit built by hand with the flat bias, made sharp, spreads its weight evenly over the
 * matching keys at admissible distances: its induction score, measured by running it, is the
 * flat ceiling, computed by counting. */
START_TEST(the_flat_circuit_scores_the_flat_ceiling)
{
    const InductionShape s = { 8, 16, 24, 1 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built_flat(&m, 100.0, 3);
    int repeat[60];
    int *tokens = draw_batch(s, 60, 3, 32, repeat);
    double previous[2], induction[2];
    induction_head_scores(&m, tokens, repeat, 60, previous, induction);
    const double flat = induction_score_flat_ceiling(tokens, repeat, 60, s.length, 3);
    ck_assert_double_eq_tol(induction[1], flat, 1e-6);
    ck_assert_double_gt(flat, induction_score_ceiling(tokens, repeat, 60, s.length) + 0.01);
    free(tokens);
    induction_free64(&m);
}
END_TEST

/* The window of a bias, against closed forms: the flat bias of the hand-built circuit is 0
 * inside and -sharp outside; the falling bias -t has an arithmetic series on either side.
 * With T = 16 and shortest 3 the window is distances 2 to 7 and the others 0, 1 and 8 to 14. */
START_TEST(the_bias_window_of_the_flat_and_the_falling_bias)
{
    const InductionShape s = { 5, 16, 15, 1 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built_flat(&m, 100.0, 3);
    InductionWindow w = induction_bias_window(m.stack.bias[1], 0, 3);
    ck_assert_double_eq_tol(w.margin, 100.0, 1e-12);
    ck_assert_double_eq(w.rise, 0.0);
    ck_assert_double_eq(w.spread, 0.0);
    induction_hand_built(&m, 100.0);
    w = induction_bias_window(m.stack.bias[1], 0, 3);
    const double inside = -(2.0 + 7.0) / 2, outside = -(14.0 * 15 / 2 + 6 * inside) / 9;
    ck_assert_double_eq_tol(w.margin, inside - outside, 1e-12);
    ck_assert_double_eq(w.rise, -5.0);
    ck_assert_double_eq(w.spread, 5.0);
    induction_free64(&m);
}
END_TEST

/* Place by place, the hand-built circuit on a segment of distinct tokens predicts every token
 * of the repeat with near certainty, and loses more than a nat at every place of the first
 * half, where nothing can be predicted; the repeat's last place predicts nothing. */
START_TEST(the_hand_built_circuit_loses_nothing_in_the_repeat_place_by_place)
{
    const InductionShape s = { 8, 12, 24, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 100.0);
    const int tokens[12] = { 7, 1, 0, 3, 6, 2, 5, 0, 3, 6, 2, 5 }, repeat[1] = { 5 };
    double first[6], second[6];
    induction_loss_by_place(&m, tokens, repeat, 1, first, second);
    for (int k = 0; k + 1 < 5; k++) {
        ck_assert_double_lt(second[k], 1e-6);
        ck_assert_double_gt(first[k], 1.0);
    }
    ck_assert(isnan(second[4]) && isnan(first[5]) && isnan(second[5]));
    induction_free64(&m);
}
END_TEST

/* Mean ablation takes the head's mean output over every position of the sequences it is given,
 * and changes the ablated layer's output at row t by (mean - o_t) W_O^h, and nothing before
 * it: with layer 2's head 1 replaced, the final stream differs from the intact model's by
 * exactly that, and layer 1's output not at all. */
START_TEST(mean_ablation_replaces_the_heads_output_by_its_mean)
{
    const InductionShape s = { 6, 9, 8, 2 };
    InductionModel64 m = random_model(s, 62), intact = induction_new64(s);
    induction_copy64(&m, &intact);
    int *batch = draw_batch(s, 4, 2, 63, NULL);
    induction_mean_ablate(&m, 1, 1, batch, 4);
    InductionWork64 a = induction_work_new64(s, 1), b = induction_work_new64(s, 1);
    induction_forward64(&m, batch, &a);
    induction_forward64(&intact, batch, &b);
    const MultiHead64 *two = &intact.stack.layer[1];
    const int dh = two->d_head;
    double mean[4] = { 0.0 };
    for (int q = 0; q < 4; q++) {
        induction_forward64(&intact, batch + q * s.length, &b);
        for (int t = 0; t < s.length; t++)
            for (int j = 0; j < dh; j++)
                mean[j] += AT(b.stack.trace[1].concat, t, dh + j) / (4.0 * s.length);
    }
    for (int j = 0; j < dh; j++)
        ck_assert_double_eq_tol(m.stack.replaced.output[j], mean[j], 1e-14);
    induction_forward64(&intact, batch, &b);
    for (int t = 0; t < s.length; t++)
        for (int c = 0; c < s.d_model; c++) {
            double change = 0.0;
            for (int j = 0; j < dh; j++)
                change += (m.stack.replaced.output[j] - AT(b.stack.trace[1].concat, t, dh + j)) *
                          AT(two->w_out, dh + j, c);
            ck_assert_double_eq_tol(AT(a.stack.x[2], t, c) - AT(b.stack.x[2], t, c),
                                    change, 1e-12);
            ck_assert_double_eq(AT(a.stack.x[1], t, c), AT(b.stack.x[1], t, c));
        }
    induction_work_free64(&a);
    induction_work_free64(&b);
    free(batch);
    induction_free64(&m);
    induction_free64(&intact);
}
END_TEST

/* The hand-built circuit, its previous-token head mean-ablated: the previous-token block then
 * holds the same average at every position, layer 2 finds no match, and the copying stops. */
START_TEST(mean_ablating_the_built_previous_token_head_stops_the_copying)
{
    const InductionShape s = { 8, 12, 24, 2 };
    InductionModel64 m = induction_new64(s);
    induction_hand_built(&m, 100.0);
    const int tokens[24] = { 7, 1, 0, 3, 6, 2, 5, 0, 3, 6, 2, 5,
                             4, 6, 1, 7, 2, 0, 5, 1, 7, 2, 0, 5 }, repeat[2] = { 5, 5 };
    const double intact = induction_evaluate(&m, tokens, repeat, 2).right_second;
    induction_mean_ablate(&m, 0, 0, tokens, 2);
    const double ablated = induction_evaluate(&m, tokens, repeat, 2).right_second;
    ck_assert_double_eq(intact, 1.0);
    ck_assert_double_lt(ablated, 0.5);
    induction_free64(&m);
}
END_TEST

/* Zeroing a head of layer 2 leaves every attention pattern as it was, so every head's two
 * scores, the text's claim; zeroing the previous-token head of layer 1 moves layer 2's. */
START_TEST(zeroing_a_second_layer_head_leaves_the_scores_alone)
{
    const InductionShape s = { 6, 10, 8, 2 };
    InductionModel64 m = random_model(s, 64), ablated = induction_new64(s);
    int repeat[4];
    int *batch = draw_batch(s, 4, 2, 65, repeat);
    double previous[4], induction[4], previous2[4], induction2[4];
    induction_head_scores(&m, batch, repeat, 4, previous, induction);
    induction_copy64(&m, &ablated);
    induction_ablate(&ablated, 1, 0);
    induction_head_scores(&ablated, batch, repeat, 4, previous2, induction2);
    ck_assert(memcmp(previous, previous2, sizeof previous) == 0);
    ck_assert(memcmp(induction, induction2, sizeof induction) == 0);
    induction_ablate(&ablated, 0, 0);
    induction_head_scores(&ablated, batch, repeat, 4, previous2, induction2);
    ck_assert_double_gt(fabs(induction2[2] - induction[2]) + fabs(induction2[3] - induction[3]),
                        1e-9);
    free(batch);
    induction_free64(&m);
    induction_free64(&ablated);
}
END_TEST

/* A composition score is at most 1, and does not change when either head's matrices are scaled. */
START_TEST(a_composition_score_is_at_most_one_and_ignores_scale)
{
    const InductionShape s = { 6, 10, 8, 2 };
    InductionModel64 m = random_model(s, 66);
    Matrix64 qk1 = matrix_new64(8, 8), ov1 = matrix_new64(8, 8), qk2 = matrix_new64(8, 8),
             ov2 = matrix_new64(8, 8);
    induction_head_circuits(&m, 0, 1, qk1, ov1);
    induction_head_circuits(&m, 1, 0, qk2, ov2);
    for (int kind = 0; kind < COMPOSITIONS; kind++) {
        const double score = composition_score(ov1, qk2, ov2, (Composition)kind);
        ck_assert_double_le(score, 1.0);
        ck_assert_double_gt(score, 0.0);
        for (int e = 0; e < 64; e++)
            ov1.data[e] *= 3.0;
        ck_assert_double_eq_tol(composition_score(ov1, qk2, ov2, (Composition)kind), score,
                                1e-12);
    }
    Matrix64 all[4] = { qk1, ov1, qk2, ov2 };
    for (int k = 0; k < 4; k++)
        matrix_free64(&all[k]);
    induction_free64(&m);
}
END_TEST

/* Two aligned maps of rank k with flat spectra score 1/sqrt(k), whatever their scales; maps
 * on disjoint coordinates score 0.  Here d = 12 and k = 4: the maps are multiples of the
 * projection P on the first four coordinates, and Q on the next four. */
START_TEST(aligned_flat_maps_score_one_over_the_root_of_their_rank)
{
    const int d = 12, k = 4;
    Matrix64 ov1 = matrix_new64(d, d), qk2 = matrix_new64(d, d), ov2 = matrix_new64(d, d),
             apart = matrix_new64(d, d);
    for (int i = 0; i < k; i++) {
        AT(ov1, i, i) = 2.0;
        AT(qk2, i, i) = 3.0;
        AT(ov2, i, i) = 5.0;
        AT(apart, k + i, k + i) = 7.0;
    }
    for (int kind = 0; kind < COMPOSITIONS; kind++)
        ck_assert_double_eq_tol(composition_score(ov1, qk2, ov2, (Composition)kind),
                                1.0 / sqrt(k), 1e-15);
    ck_assert_double_eq(composition_score(ov1, apart, ov2, COMPOSE_K), 0.0);
    ck_assert_double_eq(composition_score(ov1, apart, ov2, COMPOSE_Q), 0.0);
    ck_assert_double_eq(composition_score(ov1, qk2, apart, COMPOSE_V), 0.0);
    Matrix64 all[4] = { ov1, qk2, ov2, apart };
    for (int j = 0; j < 4; j++)
        matrix_free64(&all[j]);
}
END_TEST

/* The baseline against the slow way: draw the same random models from the same stream, score
 * every pair of each, and take the mean, the standard deviation (two passes) and the mean of
 * each model's largest. */
START_TEST(the_composition_baseline_is_the_statistics_of_its_pairs)
{
    const InductionShape s = { 5, 6, 8, 2 };
    enum { DRAWS = 7, PAIRS = DRAWS * 4 };
    Rng rng;
    rng_seed(&rng, 70, 1);
    const CompositionBaseline b = composition_baseline(s, COMPOSE_K, DRAWS, &rng);
    rng_seed(&rng, 70, 1);
    double score[PAIRS], largest = 0.0, mean = 0.0, squares = 0.0;
    Matrix64 qk[2][2], ov[2][2];
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++) {
            qk[l][h] = matrix_new64(8, 8);
            ov[l][h] = matrix_new64(8, 8);
        }
    for (int k = 0; k < DRAWS; k++) {
        InductionModel64 m = induction_new64(s);
        KitParam64 list[INDUCTION_MATRICES];
        induction_params64(&m, list);
        for (int p = 0; p < INDUCTION_MATRICES; p++)
            for (int e = 0; e < list[p].rows * list[p].cols; e++)
                list[p].data[e] = rng_normal(&rng);
        for (int l = 0; l < 2; l++)
            for (int h = 0; h < 2; h++)
                induction_head_circuits(&m, l, h, qk[l][h], ov[l][h]);
        double top = 0.0;
        for (int f = 0; f < 2; f++)
            for (int g = 0; g < 2; g++) {
                const double c = composition_score(ov[0][f], qk[1][g], ov[1][g], COMPOSE_K);
                score[k * 4 + f * 2 + g] = c;
                top = c > top ? c : top;
            }
        largest += top / DRAWS;
        induction_free64(&m);
    }
    for (int p = 0; p < PAIRS; p++)
        mean += score[p] / PAIRS;
    for (int p = 0; p < PAIRS; p++)
        squares += (score[p] - mean) * (score[p] - mean) / (PAIRS - 1);
    ck_assert_double_eq_tol(b.mean, mean, 1e-14);
    ck_assert_double_eq_tol(b.sd, sqrt(squares), 1e-12);
    ck_assert_double_eq_tol(b.largest, largest, 1e-14);
    ck_assert_double_gt(b.largest, b.mean);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++) {
            matrix_free64(&qk[l][h]);
            matrix_free64(&ov[l][h]);
        }
}
END_TEST

/* With one head a layer, a model has one pair, which is its own largest. */
START_TEST(with_one_head_the_largest_pair_is_the_mean)
{
    const InductionShape s = { 5, 6, 8, 1 };
    Rng rng;
    rng_seed(&rng, 71, 1);
    const CompositionBaseline b = composition_baseline(s, COMPOSE_V, 9, &rng);
    ck_assert_double_eq_tol(b.largest, b.mean, 1e-15);
    ck_assert_double_gt(b.sd, 0.0);
}
END_TEST

/* Random pairs score about 1/sqrt(d), the text's claim, for the book's shape (d = 32, two
 * heads) and for narrower heads (d = 16, four heads of 4): within 3 per cent. */
START_TEST(random_pairs_score_about_one_over_the_root_of_the_width)
{
    const InductionShape shapes[2] = { { 16, 8, 32, 2 }, { 8, 8, 16, 4 } };
    for (int k = 0; k < 2; k++)
        for (int kind = 0; kind < COMPOSITIONS; kind++) {
            Rng rng;
            rng_seed(&rng, 72, (uint64_t)(3 * k + kind));
            const CompositionBaseline b =
                composition_baseline(shapes[k], (Composition)kind, 40, &rng);
            ck_assert_double_eq_tol(b.mean * sqrt(shapes[k].d_model), 1.0, 0.03);
        }
}
END_TEST

START_TEST(the_bias_window_refuses_a_head_it_has_not)
{
    Matrix64 bias = matrix_new64(2, 16);
    induction_bias_window(bias, 2, 3);
}
END_TEST

START_TEST(the_flat_ceiling_refuses_a_repeat_shorter_than_the_shortest)
{
    const int tokens[8] = { 0, 1, 2, 3, 4, 5, 4, 5 }, repeat[1] = { 2 };
    induction_score_flat_ceiling(tokens, repeat, 1, 8, 3);
}
END_TEST

/* A stack with a replaced head is only run forward: its backward pass refuses. */
START_TEST(the_backward_pass_refuses_a_mean_ablated_model)
{
    const InductionShape s = { 6, 10, 8, 2 };
    InductionModel64 m = random_model(s, 67), grad = induction_new64(s);
    int *batch = draw_batch(s, 2, 2, 68, NULL);
    induction_mean_ablate(&m, 0, 1, batch, 2);
    InductionWork64 w = induction_work_new64(s, 2);
    induction_forward64(&m, batch, &w);
    induction_backward64(&m, batch, &w, 1.0, &grad);
}
END_TEST

/* Decoded token by token with a cache per layer, the model gives the full pass's
 * probabilities at every position, to float's rounding, and the program's measure of the
 * difference is this one.  The biases are drawn, not zero: the same decoder with its
 * caches' biases taken away differs by far more. */
START_TEST(decoding_gives_the_probabilities_of_the_full_pass)
{
    const InductionShape s = { 7, 12, 16, 2 };
    InductionModel64 m = random_model(s, 71);
    ck_assert_double_gt(fabs(AT(m.stack.bias[1], 1, 3)), 0.1);
    int *tokens = draw_batch(s, 3, 2, 72, NULL);
    InductionWork64 w = induction_work_new64(s, 1);
    InductionDecoder d = induction_decoder_new(&m, DECODE_FLOAT),
                     blind = induction_decoder_new(&m, DECODE_FLOAT);
    double p[7], q[7], worst = 0.0, without = 0.0;
    for (int b = 0; b < 3; b++) {
        const int *x = &tokens[b * s.length];
        induction_forward64(&m, x, &w);
        softmax_row64(&AT(w.logits, s.length - 1, 0), s.vocab);
        induction_decoder_restart(&d);
        induction_decoder_restart(&blind);
        for (int l = 0; l < 2; l++)
            blind.cache[l].bias = NULL;
        for (int t = 0; t < s.length; t++) {
            induction_decode(&d, x[t], p);
            induction_decode(&blind, x[t], q);
            for (int v = 0; v < s.vocab; v++) {
                worst = fmax(worst, fabs(p[v] - AT(w.logits, t, v)));
                without = fmax(without, fabs(q[v] - AT(w.logits, t, v)));
            }
        }
    }
    ck_assert_double_le(worst, 1e-5);
    ck_assert_double_gt(without, 1e-2);
    ck_assert_double_eq(induction_decoded_difference(&m, tokens, 3), worst);
    induction_decoder_free(&d);
    induction_decoder_free(&blind);
    induction_work_free64(&w);
    free(tokens);
    induction_free64(&m);
}
END_TEST

/* Chapter 11's bound on the error of one layer's output with an eight-bit cache,
 *   |o'_c - o_c| <= (e^{2 eps} - 1) max_j |v_jc| + max_j |dv_jc|,
 * with eps = max over the stored tiles of sum_c |q_c| s_c / (2 sqrt(d_head)), s_c the
 * largest |k_jc| of the tile over 127, and |dv_jc| <= max_c |v_jc| / 254.  Layer 1's
 * queries, keys and values are computed here in double from the model; the bound of
 * head output c at position t goes into error[c]. */
static void eightbit_bound(const MultiHead64 *l, const double *q, const double *k,
                           const double *v, int t, int tile, double *error)
{
    const int d = l->d_model, dh = l->d_head;
    for (int h = 0; h < l->n_heads; h++) {
        double eps = 0.0, dv = 0.0;
        for (int first = 0; first + tile <= t + 1; first += tile) {  /* the stored tiles */
            double sum = 0.0;
            for (int c = h * dh; c < (h + 1) * dh; c++) {
                double top = 0.0;
                for (int j = first; j < first + tile; j++)
                    top = fmax(top, fabs(k[j * d + c]));
                sum += fabs(q[c]) * top / 127.0;
            }
            eps = fmax(eps, sum / (2.0 * sqrt((double)dh)));
        }
        for (int j = 0; j <= t; j++)
            for (int c = h * dh; c < (h + 1) * dh; c++)
                dv = fmax(dv, fabs(v[j * d + c]) / 254.0);
        for (int c = h * dh; c < (h + 1) * dh; c++) {
            double top = 0.0;
            for (int j = 0; j <= t; j++)
                top = fmax(top, fabs(v[j * d + c]));
            error[c] = expm1(2.0 * eps) * top + dv;
        }
    }
}

/* Greedy decoding with eight-bit caches stays within chapter 11's bound of decoding with
 * float caches, on a sequence long enough to store two tiles of keys in eight bits.  Layer
 * 2 is silenced (its W_O is zero), so that layer 1's error alone reaches the logits, and
 * layer 1's W_O is the identity, so that the stream's row after the stack is the token's
 * embedding plus the heads' outputs, whose error the bound is about.  Carried through the
 * unembedding, |dz_u| <= sum_c error_c |U_cu|, to the softmax, the probabilities move by
 * at most sum_u |dp_u| <= e^{2 max |dz|} - 1 (chapter 11's argument for the weights).  Both
 * decoders are fed the data up to the repeat's first token, then the float decoder's greedy
 * tokens; wherever the float decoder's lead over the runner-up exceeds the bound, the
 * eight-bit decoder's greedy choice is the same.  And eight bits do change the outputs:
 * the two caches are not the same. */
START_TEST(eight_bits_stay_within_the_bound_of_chapter_11)
{
    const int tile = INDUCTION_DECODE_TILE, T = 2 * tile + 3, d = 8;
    const InductionShape s = { 6, T, d, 2 };
    InductionModel64 m = random_model(s, 81);
    induction_ablate(&m, 1, 0);
    induction_ablate(&m, 1, 1);
    const MultiHead64 *l = &m.stack.layer[0];
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++)
            AT(l->w_out, r, c) = r == c;
    int repeat;
    int *data = draw_batch(s, 1, 2, 82, &repeat);
    InductionDecoder f = induction_decoder_new(&m, DECODE_FLOAT),
                     e = induction_decoder_new(&m, DECODE_EIGHTBIT);
    double *k = calloc((size_t)T * d, sizeof *k), *v = calloc((size_t)T * d, sizeof *v);
    double pf[6], pe[6], q[8], error[8], largest = 0.0;
    int token = data[0], led = 0;
    for (int t = 0; t < T; t++) {
        induction_decode(&f, token, pf);
        induction_decode(&e, token, pe);
        for (int c = 0; c < d; c++) {
            q[c] = k[t * d + c] = v[t * d + c] = 0.0;
            for (int r = 0; r < d; r++) {
                q[c] += AT(m.embed, token, r) * AT(l->w_query, r, c);
                k[t * d + c] += AT(m.embed, token, r) * AT(l->w_key, r, c);
                v[t * d + c] += AT(m.embed, token, r) * AT(l->w_value, r, c);
            }
        }
        eightbit_bound(l, q, k, v, t, tile, error);
        for (int c = 0; c < d; c++) {
            const double moved = fabs((double)e.x.data[c] - f.x.data[c]);
            ck_assert_double_le(moved, error[c] + 1e-5);
            largest = fmax(largest, moved);
        }
        double dz = 0.0, shift = 0.0;
        for (int u = 0; u < s.vocab; u++) {
            double sum = 0.0;
            for (int c = 0; c < d; c++)
                sum += error[c] * fabs(AT(m.unembed, c, u));
            dz = fmax(dz, sum);
            shift += fabs(pe[u] - pf[u]);
        }
        const double bound = expm1(2.0 * dz) + 1e-5;
        ck_assert_double_le(shift, bound);
        int best = 0, second = 1;
        for (int u = 1; u < s.vocab; u++)
            if (pf[u] > pf[best]) {
                second = best;
                best = u;
            } else if (pf[u] > pf[second])
                second = u;
        if (pf[best] - pf[second] > bound) {
            ck_assert_int_eq(decode_sample(pe, s.vocab, 0.0, NULL), best);
            led++;
        }
        if (t + 1 < T)
            token = t + 1 <= T - repeat ? data[t + 1] : best;
    }
    ck_assert_double_gt(largest, 1e-4);
    ck_assert_int_gt(led, 0);
    for (int l = 0; l < 2; l++)         /* the keys of both full tiles are in eight bits */
        ck_assert(e.cache[l].tile == tile && e.cache[l].key_scales[0] > 0.0f &&
                  e.cache[l].key_scales[(size_t)e.cache[l].d_head] > 0.0f);
    free(k);
    free(v);
    free(data);
    induction_decoder_free(&f);
    induction_decoder_free(&e);
    induction_free64(&m);
}
END_TEST

/* The decoder's tile of keys is one of the widths the cache takes on this target, as it is
 * on every target: one, two or four vectors of 4, 8 or 16 floats. */
START_TEST(the_decoders_tile_is_a_width_the_cache_takes)
{
    int slots[DECODE_TILE_CHOICES], found = 0;
    for (int i = 0; i < decode_tile_choices(slots); i++)
        found += slots[i] == INDUCTION_DECODE_TILE;
    ck_assert_int_eq(found, 1);
}
END_TEST

/* The cache's step has no replaced head: the decoder refuses a mean-ablated model. */
START_TEST(the_decoder_refuses_a_mean_ablated_model)
{
    const InductionShape s = { 6, 10, 8, 2 };
    InductionModel64 m = random_model(s, 91);
    int *batch = draw_batch(s, 2, 2, 92, NULL);
    induction_mean_ablate(&m, 0, 1, batch, 2);
    induction_decoder_new(&m, DECODE_FLOAT);
}
END_TEST

Suite *induction_suite(void)
{
    Suite *suite = suite_create("induction");
    TCase *layer = tcase_create("layer");
    tcase_add_test(layer, layer_with_a_zero_bias_is_the_layer_without_one);
    tcase_add_test(layer, a_bias_alone_gives_its_softmax_by_distance);
    suite_add_tcase(suite, layer);
    TCase *gradient = tcase_create("gradient");
    tcase_set_timeout(gradient, 60);
    tcase_add_test(gradient, gradient_matches_central_differences);
    tcase_add_test(gradient, the_float_gradient_agrees_with_the_double_one_to_float_rounding);
    tcase_add_test(gradient, batch_gradient_is_the_mean_of_single_gradients_on_any_threads);
    tcase_add_test(gradient, shards_used_again_give_the_gradient_of_fresh_ones);
    tcase_add_test(gradient, adam_first_step_moves_every_weight_by_the_rate);
    tcase_add_test(gradient, loss_falls_over_a_few_steps);
    suite_add_tcase(suite, gradient);
    TCase *circuit = tcase_create("circuit");
    tcase_add_test(circuit, draw_repeats_a_segment_of_every_allowed_length);
    tcase_add_test(circuit, hand_built_circuit_copies_and_ablation_stops_it);
    tcase_add_test(circuit, hand_built_scores);
    tcase_add_test(circuit, ablation_zeroes_only_the_heads_rows);
    tcase_add_test(circuit, the_hand_built_circuit_copies_and_composes_through_its_keys);
    tcase_add_test(circuit, the_score_ceiling_spreads_the_weight_over_the_matches);
    tcase_add_test(circuit, the_hand_built_circuit_loses_nothing_in_the_repeat_place_by_place);
    tcase_add_test(circuit, mean_ablation_replaces_the_heads_output_by_its_mean);
    tcase_add_test(circuit, mean_ablating_the_built_previous_token_head_stops_the_copying);
    tcase_add_test(circuit, zeroing_a_second_layer_head_leaves_the_scores_alone);
    tcase_add_test(circuit, a_composition_score_is_at_most_one_and_ignores_scale);
    tcase_add_test(circuit, draw_repeated_copies_distinct_tokens_of_the_alphabet);
    tcase_add_test(circuit, the_bound_is_the_part_furthest_beyond_the_peak);
    tcase_add_test(circuit, the_controls_score_their_closed_forms_and_the_rule_needs_both_halves);
    tcase_add_test(circuit, the_repeated_tokens_test_finds_the_hand_built_induction_head);
    tcase_add_test(circuit, a_model_of_zeros_is_the_uniform_head_and_predicts_nothing);
    tcase_add_test(circuit, a_local_head_scores_zero_and_a_head_on_the_next_token_one);
    tcase_add_test(circuit, the_flat_ceiling_counts_only_the_admissible_matches);
    tcase_add_test(circuit, the_flat_ceiling_is_at_least_the_ceiling);
    tcase_add_test(circuit, the_flat_circuit_scores_the_flat_ceiling);
    tcase_add_test(circuit, the_bias_window_of_the_flat_and_the_falling_bias);
    tcase_add_test(circuit, aligned_flat_maps_score_one_over_the_root_of_their_rank);
    tcase_add_test(circuit, the_composition_baseline_is_the_statistics_of_its_pairs);
    tcase_add_test(circuit, with_one_head_the_largest_pair_is_the_mean);
    tcase_add_test(circuit, random_pairs_score_about_one_over_the_root_of_the_width);
    suite_add_tcase(suite, circuit);
    TCase *decoded = tcase_create("decoded");
    tcase_add_test(decoded, decoding_gives_the_probabilities_of_the_full_pass);
    tcase_add_test(decoded, eight_bits_stay_within_the_bound_of_chapter_11);
    tcase_add_test(decoded, the_decoders_tile_is_a_width_the_cache_takes);
    suite_add_tcase(suite, decoded);
    TCase *eigen = tcase_create("eigenvalues");
    tcase_add_test(eigen, a_triangular_matrix_has_its_diagonal_as_eigenvalues);
    tcase_add_test(eigen, a_rotation_has_a_conjugate_pair_on_the_unit_circle);
    tcase_add_test(eigen, a_companion_matrix_has_the_roots_of_its_polynomial);
    tcase_add_test(eigen, random_eigenvalues_sum_to_the_trace);
    suite_add_tcase(suite, eigen);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, new_refuses_heads_that_do_not_divide_the_width, SIGABRT);
    tcase_add_test_raise_signal(refused, draw_refuses_a_segment_too_long, SIGABRT);
    tcase_add_test_raise_signal(refused, hand_built_refuses_a_narrow_stream, SIGABRT);
    tcase_add_test_raise_signal(refused, evaluate_refuses_a_segment_longer_than_half, SIGABRT);
    tcase_add_test_raise_signal(refused,
                                the_repeated_tokens_test_refuses_a_second_copy_that_differs,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, the_backward_pass_refuses_a_mean_ablated_model,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, the_decoder_refuses_a_mean_ablated_model, SIGABRT);
    tcase_add_test_raise_signal(refused, the_bias_window_refuses_a_head_it_has_not, SIGABRT);
    tcase_add_test_raise_signal(refused,
                                the_flat_ceiling_refuses_a_repeat_shorter_than_the_shortest,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
