/* Tests of the recall module (chapter 9): the task, the bound without attention, both forward
 * passes against a direct computation, the per-position gradient against central differences
 * (repeated rows included), the fast gradient through the projected tables against the
 * per-position one, the tables' backward step against the product rule, the uniform fixed
 * point, and a short training run that learns. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "kit.h"
#include "lab.h"
#include "recall.h"

enum { K = RECALL_KEYS, V = RECALL_VALUES, W = RECALL_WIDTH, T = RECALL_LENGTH };

START_TEST(draws_distinct_keys_and_values_in_range)
{
    enum { N = 30000 };
    Rng rng;
    rng_seed(&rng, 11, 1);
    int asked[RECALL_PAIRS] = { 0 }, keys[K] = { 0 };
    for (int b = 0; b < N; b++) {
        RecallSequence s;
        recall_draw(&rng, &s);
        ck_assert(s.asked >= 0 && s.asked < RECALL_PAIRS);
        asked[s.asked]++;
        for (int p = 0; p < RECALL_PAIRS; p++) {
            ck_assert(s.key[p] >= 0 && s.key[p] < K);
            ck_assert(s.value[p] >= 0 && s.value[p] < V);
            keys[s.key[p]]++;
            for (int q = 0; q < p; q++)
                ck_assert_int_ne(s.key[p], s.key[q]);
        }
    }
    /* Uniform frequencies, within five standard errors. */
    for (int p = 0; p < RECALL_PAIRS; p++)
        ck_assert_double_le(fabs(asked[p] / (double)N - 1.0 / 3), 5 * sqrt(2.0 / 9 / N));
    for (int k = 0; k < K; k++)
        ck_assert_double_le(fabs(keys[k] / (3.0 * N) - 1.0 / K), 5 * sqrt(1.0 / K / (3.0 * N)));
}
END_TEST

/* "Each of the 8 x 7 x 6 ordered choices is equally likely": every ordered triple of keys
 * appears, each about as often as the others (within five standard errors). */
START_TEST(every_ordered_choice_of_keys_is_equally_likely)
{
    enum { CHOICES = K * K * K, N = 336 * 300 };
    static int seen[CHOICES];
    memset(seen, 0, sizeof seen);
    Rng rng;
    rng_seed(&rng, 11, 2);
    for (int b = 0; b < N; b++) {
        RecallSequence s;
        recall_draw(&rng, &s);
        seen[(s.key[0] * K + s.key[1]) * K + s.key[2]]++;
    }
    const double p = 1.0 / (K * (K - 1) * (K - 2)), expected = p * N;
    int used = 0;
    for (int c = 0; c < CHOICES; c++) {
        if (seen[c] == 0)
            continue;
        used++;
        ck_assert_double_le(fabs(seen[c] - expected), 5 * sqrt(N * p * (1 - p)));
    }
    ck_assert_int_eq(used, K * (K - 1) * (K - 2));
}
END_TEST

START_TEST(bag_bound_matches_the_closed_form)
{
    /* 8 values, 3 pairs: a third when all differ, two thirds when two agree, 1 when all do. */
    const double distinct = 8.0 * 7 * 6 / 512, two = 3.0 * 8 * 7 / 512, three = 8.0 / 512;
    ck_assert_double_eq_tol(distinct + two + three, 1.0, 1e-15);
    const double closed = distinct / 3 + two * 2 / 3 + three;
    ck_assert_double_eq_tol(closed, 232.0 / 512.0, 1e-15);
    ck_assert_double_eq_tol(recall_bag_bound(), closed, 1e-12);
    RecallSequence s[3] = { { { 0, 1, 2 }, { 4, 4, 4 }, 0 }, { { 0, 1, 2 }, { 4, 5, 4 }, 1 },
                            { { 0, 1, 2 }, { 3, 5, 4 }, 2 } };
    ck_assert_double_eq_tol(recall_bag_accuracy(&s[0], 1), 1.0, 1e-15);
    ck_assert_double_eq_tol(recall_bag_accuracy(&s[1], 1), 2.0 / 3, 1e-15);
    ck_assert_double_eq_tol(recall_bag_accuracy(&s[2], 1), 1.0 / 3, 1e-15);
    ck_assert_double_eq_tol(recall_bag_accuracy(s, 3), 2.0 / 3, 1e-15);
}
END_TEST

/* The model written the obvious way: build x, multiply by the weights, attend, read out. */
static double direct_forward(const RecallModel *m, const RecallSequence *s, double a[T],
                             double p[V])
{
    double x[T][W], q[W] = { 0 }, k[T][W] = { { 0 } }, v[T][W] = { { 0 } }, z[W] = { 0 };
    for (int c = 0; c < W; c++) {
        for (int j = 0; j < RECALL_PAIRS; j++)
            x[j][c] = m->e_key[s->key[j]][c] + m->e_value[s->value[j]][c];
        x[T - 1][c] = m->e_key[s->key[s->asked]][c];
    }
    for (int j = 0; j < T; j++)
        for (int c = 0; c < W; c++)
            for (int i = 0; i < W; i++) {
                k[j][c] += x[j][i] * m->w_key[i][c];
                v[j][c] += x[j][i] * m->w_value[i][c];
                if (j == T - 1)
                    q[c] += x[j][i] * m->w_query[i][c];
            }
    double total = 0.0;
    for (int j = 0; j < T; j++) {
        double dot = 0.0;
        for (int c = 0; c < W; c++)
            dot += q[c] * k[j][c];
        total += a[j] = exp(dot / sqrt((double)W));
    }
    for (int j = 0; j < T; j++)
        for (int c = 0; c < W; c++)
            z[c] += a[j] / total * v[j][c];
    for (int j = 0; j < T; j++)
        a[j] /= total;
    double sum = 0.0;
    for (int o = 0; o < V; o++) {
        double logit = 0.0;
        for (int c = 0; c < W; c++)
            logit += z[c] * m->w_out[c][o];
        sum += p[o] = exp(logit);
    }
    for (int o = 0; o < V; o++)
        p[o] /= sum;
    return -log(p[s->value[s->asked]]);
}

START_TEST(forward_matches_a_direct_computation)
{
    Rng rng;
    rng_seed(&rng, 12, 1);
    RecallModel m;
    recall_init(&m, &rng, 0.5);
    RecallTables tables;
    recall_tables(&m, &tables);
    for (int b = 0; b < 50; b++) {
        RecallSequence s;
        RecallTrace trace;
        double a[T], p[V];
        recall_draw(&rng, &s);
        const double direct = direct_forward(&m, &s, a, p);
        for (int fast = 0; fast < 2; fast++) {
            const double loss = fast ? recall_forward_fast(&m, &tables, &s, &trace)
                                     : recall_forward(&m, &s, &trace);
            ck_assert_double_eq_tol(loss, direct, 1e-12);
            for (int j = 0; j < T; j++)
                ck_assert_double_eq_tol(trace.attention[j], a[j], 1e-13);
            for (int o = 0; o < V; o++)
                ck_assert_double_eq_tol(trace.probability[o], p[o], 1e-13);
        }
    }
}
END_TEST

START_TEST(gradient_matches_central_differences)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        Rng rng;
        rng_seed(&rng, seed, 13);
        RecallModel m;
        RecallSequence batch[8];
        recall_init(&m, &rng, seed == 4 ? 1.0 : 0.3);
        recall_draw_many(&rng, batch, 8);
        const KitCheck check = recall_gradient_check(&m, batch, 8, 1e-5);
        ck_assert_int_eq(check.checked, 2 * K * W + 3 * W * W + W * V);
        ck_assert_double_le(check.worst, 1e-5);
    }
}
END_TEST

/* One sequence whose value repeats: the rows of E_V and of E_K at the query are each used
 * twice, so a backward pass that assigned instead of adding would fail here. */
START_TEST(gradient_adds_over_repeated_rows)
{
    Rng rng;
    rng_seed(&rng, 14, 1);
    RecallModel m;
    recall_init(&m, &rng, 0.5);
    const RecallSequence s = { { 5, 2, 7 }, { 3, 6, 3 }, 2 };
    const KitCheck check = recall_gradient_check(&m, &s, 1, 1e-5);
    ck_assert_double_le(check.worst, 1e-5);
    /* Rows the sequence does not use get exactly zero gradient. */
    RecallModel grad;
    recall_gradient(&m, &s, 1, &grad);
    for (int c = 0; c < W; c++) {
        ck_assert(grad.e_key[0][c] == 0.0 && grad.e_value[0][c] == 0.0);
        ck_assert(grad.e_key[5][c] != 0.0 && grad.e_value[3][c] != 0.0);
    }
}
END_TEST

/* The fast gradient goes through the projected tables, the per-position one (which the two
 * tests above check against central differences) through the inputs of the positions: the two
 * must agree to rounding, matrix by matrix, on batches of several sizes whose first sequence
 * repeats a value, from small and large weights. */
START_TEST(fast_gradient_matches_the_per_position_one)
{
    const int sizes[3] = { 1, 5, 64 };
    const double scales[3] = { 0.3, 1.0, 3.0 };
    RecallSequence batch[64];
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) {
            Rng rng;
            rng_seed(&rng, 19, (uint64_t)(3 * k + l));
            RecallModel m, plain, fast;
            recall_init(&m, &rng, scales[l]);
            recall_draw_many(&rng, batch, sizes[k]);
            batch[0] = (RecallSequence){ { 5, 2, 7 }, { 3, 6, 3 }, 2 };
            const double loss = recall_gradient(&m, batch, sizes[k], &plain);
            ck_assert_double_eq_tol(recall_gradient_fast(&m, batch, sizes[k], &fast), loss,
                                    1e-12 * fmax(1.0, loss));
            KitParam64 by_position[RECALL_MATRICES], by_table[RECALL_MATRICES];
            recall_matrices(&plain, by_position);
            recall_matrices(&fast, by_table);
            for (int p = 0; p < RECALL_MATRICES; p++)
                ck_assert_double_le(relative_difference(by_table[p].data,
                                                        by_position[p].data,
                                                        by_position[p].rows *
                                                            by_position[p].cols),
                                    1e-12);
        }
}
END_TEST

START_TEST(tables_backward_follows_the_product_rule)
{
    Rng rng;
    rng_seed(&rng, 15, 1);
    RecallModel m, grad;
    RecallTables d;
    recall_init(&m, &rng, 1.0);
    double *entries = &d.ek_wq[0][0];
    for (size_t e = 0; e < sizeof d / sizeof *entries; e++)
        entries[e] = rng_normal(&rng);
    memset(&grad, 0, sizeof grad);
    recall_tables_backward(&m, &d, &grad);
    for (int i = 0; i < W; i++)
        for (int j = 0; j < W; j++) {
            double wq = 0.0, wk = 0.0, wv = 0.0;
            for (int r = 0; r < K; r++) {     /* K == V: both tables have eight rows */
                wq += m.e_key[r][i] * d.ek_wq[r][j];
                wk += m.e_key[r][i] * d.ek_wk[r][j] + m.e_value[r][i] * d.ev_wk[r][j];
                wv += m.e_key[r][i] * d.ek_wv[r][j] + m.e_value[r][i] * d.ev_wv[r][j];
            }
            ck_assert_double_eq_tol(grad.w_query[i][j], wq, 1e-12);
            ck_assert_double_eq_tol(grad.w_key[i][j], wk, 1e-12);
            ck_assert_double_eq_tol(grad.w_value[i][j], wv, 1e-12);
        }
    for (int r = 0; r < K; r++)
        for (int i = 0; i < W; i++) {
            double ek = 0.0, ev = 0.0;
            for (int j = 0; j < W; j++) {
                ek += d.ek_wq[r][j] * m.w_query[i][j] + d.ek_wk[r][j] * m.w_key[i][j] +
                      d.ek_wv[r][j] * m.w_value[i][j];
                ev += d.ev_wk[r][j] * m.w_key[i][j] + d.ev_wv[r][j] * m.w_value[i][j];
            }
            ck_assert_double_eq_tol(grad.e_key[r][i], ek, 1e-12);
            ck_assert_double_eq_tol(grad.e_value[r][i], ev, 1e-12);
        }
}
END_TEST

START_TEST(uniform_attention_is_a_fixed_point)
{
    Rng rng;
    rng_seed(&rng, 16, 1);
    RecallModel m, grad;
    RecallSequence batch[16];
    recall_init(&m, &rng, 0.3);
    recall_make_uniform(&m);
    recall_draw_many(&rng, batch, 16);
    for (int fast = 0; fast < 2; fast++) {
        if (fast)
            recall_gradient_fast(&m, batch, 16, &grad);
        else
            recall_gradient(&m, batch, 16, &grad);
        double largest = 0.0;
        for (int i = 0; i < W; i++)
            for (int j = 0; j < W; j++) {
                ck_assert(grad.w_query[i][j] == 0.0 && grad.w_key[i][j] == 0.0);
                largest = fmax(largest, fabs(grad.w_value[i][j]));
            }
        ck_assert_double_gt(largest, 1e-4);     /* the rest of the model does learn */
    }
    RecallTables tables;
    RecallTrace trace;
    recall_tables(&m, &tables);
    recall_forward_fast(&m, &tables, &batch[0], &trace);
    for (int j = 0; j < T; j++)
        ck_assert(trace.attention[j] == 0.25);
}
END_TEST

START_TEST(step_moves_against_the_gradient)
{
    Rng rng;
    rng_seed(&rng, 17, 1);
    RecallModel m, before, grad;
    RecallSequence batch[8];
    recall_init(&m, &rng, 0.3);
    recall_draw_many(&rng, batch, 8);
    before = m;
    const double loss = recall_gradient_fast(&m, batch, 8, &grad);
    ck_assert_double_eq_tol(recall_step(&m, batch, 8, 0.1, false), loss, 1e-15);
    for (int i = 0; i < W; i++)
        for (int j = 0; j < W; j++) {
            ck_assert(m.w_query[i][j] == before.w_query[i][j]);
            ck_assert(m.w_key[i][j] == before.w_key[i][j]);
            ck_assert(m.w_value[i][j] == before.w_value[i][j] - 0.1 * grad.w_value[i][j]);
        }
    ck_assert_double_lt(recall_loss(&m, batch, 8), loss);
}
END_TEST

START_TEST(short_training_learns_past_the_bound)
{
    RecallModel learned, uniform;
    RecallSequence batch[64], *tests = memory_alloc(1000, sizeof *tests);
    Rng init, data, test;
    rng_seed(&init, 18, 1);
    rng_seed(&test, 18, 2);
    recall_init(&learned, &init, 0.3);
    uniform = learned;
    recall_make_uniform(&uniform);
    recall_draw_many(&test, tests, 1000);
    rng_seed(&data, 18, 3);
    for (int step = 0; step < 300; step++) {
        recall_draw_many(&data, batch, 64);
        recall_step(&learned, batch, 64, 0.5, true);
        recall_step(&uniform, batch, 64, 0.5, false);
    }
    const double bound = recall_bag_bound();
    ck_assert_double_gt(recall_accuracy(&learned, tests, 1000), bound + 0.3);
    ck_assert_double_lt(recall_accuracy(&uniform, tests, 1000), bound + 0.05);
    free(tests);
}
END_TEST

Suite *recall_suite(void)
{
    Suite *suite = suite_create("recall");
    TCase *task = tcase_create("the task and the bound");
    tcase_add_test(task, draws_distinct_keys_and_values_in_range);
    tcase_add_test(task, every_ordered_choice_of_keys_is_equally_likely);
    tcase_add_test(task, bag_bound_matches_the_closed_form);
    suite_add_tcase(suite, task);
    TCase *model = tcase_create("the model and its gradient");
    tcase_add_test(model, forward_matches_a_direct_computation);
    tcase_add_test(model, gradient_matches_central_differences);
    tcase_add_test(model, gradient_adds_over_repeated_rows);
    tcase_add_test(model, fast_gradient_matches_the_per_position_one);
    tcase_add_test(model, tables_backward_follows_the_product_rule);
    tcase_add_test(model, uniform_attention_is_a_fixed_point);
    suite_add_tcase(suite, model);
    TCase *training = tcase_create("training");
    tcase_add_test(training, step_moves_against_the_gradient);
    tcase_add_test(training, short_training_learns_past_the_bound);
    suite_add_tcase(suite, training);
    return suite;
}
