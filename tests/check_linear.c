/* Tests of the linear module (chapter 14): the MQAR generator's sequences well formed (keys and
 * values in their ranges and distinct, each key asked once at an even offset after the pairs,
 * labels only at the queries, fillers 0); the law of the query slots by Pearson's chi-square
 * with one pair and with two; draws kept apart from a set never giving its sequences; the
 * capacity's closed forms (both rules exact on d orthonormal keys, the delta rule exact on its
 * last pair, linear attention's crosstalk variance (K - 1)/d); and the recurrent and parallel
 * forms of linear attention against each other, in double and in float. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "linear.h"
#include "refusal.h"

/* Every rule of the chapter's list, for one sequence.  It returns whether all hold, so that a
 * test asserts once per sequence (each of Check's assertions costs a message to the runner). */
static bool well_formed(MqarShape s, const int *tokens, const int *labels)
{
    const int half = s.vocab / 2, start = 2 * s.pairs;
    bool good = true;
    for (int i = 0; i < s.pairs; i++) {
        const int key = tokens[2 * i], value = tokens[2 * i + 1];
        good &= key >= 1 && key < half && value >= half && value < s.vocab;
        good &= labels[2 * i] == MQAR_UNLABELLED && labels[2 * i + 1] == MQAR_UNLABELLED;
        for (int j = 0; j < i; j++)
            good &= tokens[2 * j] != key && tokens[2 * j + 1] != value;
        int asked = 0;
        for (int t = start; t < s.length; t++)
            if (tokens[t] == key) {
                good &= (t - start) % 2 == 0 && labels[t] == value;
                asked++;
            }
        good &= asked == 1;
    }
    int queries = 0;
    for (int t = start; t < s.length; t++) {
        if (tokens[t] == 0)
            good &= labels[t] == MQAR_UNLABELLED;
        else
            queries++;
    }
    return good && queries == s.pairs;
}

START_TEST(sequences_are_well_formed)
{
    const MqarShape shapes[] = { { 8192, 128, 8 }, { 8192, 64, 16 }, { 6, 4, 1 },
                                 { 40, 32, 8 }, { 300, 256, 16 }, { 11, 10, 2 } };
    Rng rng;
    rng_seed(&rng, 14, 1);
    int tokens[256], labels[256];
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (int b = 0; b < 2000; b++) {
            mqar_draw(&rng, shapes[k], tokens, labels);
            ck_assert(well_formed(shapes[k], tokens, labels));
        }
}
END_TEST

/* The upper 0.001 quantile of chi-square with df degrees of freedom, by Wilson and Hilferty's
 * cube-root approximation (3.0902 is the standard normal's upper 0.001 quantile). */
static double chi_square_bound(int df)
{
    const double a = 2.0 / (9.0 * df);
    return df * pow(1.0 - a + 3.0902 * sqrt(a), 3.0);
}

static double slot_law(int slots, int g)
{
    double total = 0.0;
    for (int h = 0; h < slots; h++)
        total += mqar_slot_weight(h);
    return mqar_slot_weight(g) / total;
}

/* With one pair, the query's slot follows the law: T = 64 gives 31 slots, 30 degrees of
 * freedom; every expected count is above 150. */
START_TEST(one_query_follows_the_law_of_the_slots)
{
    enum { N = 20000, SLOTS = 31 };
    const MqarShape s = { 8192, 64, 1 };
    int count[SLOTS] = { 0 }, tokens[64], labels[64];
    Rng rng;
    rng_seed(&rng, 14, 2);
    for (int b = 0; b < N; b++) {
        mqar_draw(&rng, s, tokens, labels);
        for (int g = 0; g < SLOTS; g++)
            count[g] += tokens[2 + 2 * g] != 0;
    }
    double chi = 0.0;
    for (int g = 0; g < SLOTS; g++) {
        const double expected = N * slot_law(SLOTS, g);
        ck_assert_double_gt(expected, 150.0);
        chi += (count[g] - expected) * (count[g] - expected) / expected;
    }
    ck_assert_double_lt(chi, chi_square_bound(SLOTS - 1));
}
END_TEST

/* With two pairs, the pair of slots {g, h} has the chance of drawing g then h or h then g
 * without replacement: T = 16 gives 6 slots, 15 pairs, 14 degrees of freedom. */
START_TEST(two_queries_follow_the_law_without_replacement)
{
    enum { N = 20000, SLOTS = 6 };
    const MqarShape s = { 8192, 16, 2 };
    int count[SLOTS][SLOTS] = { { 0 } }, tokens[16], labels[16];
    Rng rng;
    rng_seed(&rng, 14, 3);
    for (int b = 0; b < N; b++) {
        mqar_draw(&rng, s, tokens, labels);
        int taken[2], n = 0;
        for (int g = 0; g < SLOTS; g++)
            if (tokens[4 + 2 * g] != 0)
                taken[n++] = g;
        ck_assert_int_eq(n, 2);
        count[taken[0]][taken[1]]++;
    }
    double chi = 0.0;
    for (int g = 0; g < SLOTS; g++)
        for (int h = g + 1; h < SLOTS; h++) {
            const double pg = slot_law(SLOTS, g), ph = slot_law(SLOTS, h);
            const double expected = N * (pg * ph / (1 - pg) + ph * pg / (1 - ph));
            chi += (count[g][h] - expected) * (count[g][h] - expected) / expected;
        }
    ck_assert_double_lt(chi, chi_square_bound(SLOTS * (SLOTS - 1) / 2 - 1));
}
END_TEST

/* The test has power: slots drawn by a flat law give a chi-square far above the bound. */
START_TEST(a_flat_law_fails_the_test)
{
    enum { N = 20000, SLOTS = 31 };
    Rng rng;
    rng_seed(&rng, 14, 4);
    int count[SLOTS] = { 0 };
    for (int b = 0; b < N; b++)
        count[rng_below(&rng, SLOTS)]++;
    double chi = 0.0;
    for (int g = 0; g < SLOTS; g++) {
        const double expected = N * slot_law(SLOTS, g);
        chi += (count[g] - expected) * (count[g] - expected) / expected;
    }
    ck_assert_double_gt(chi, 10 * chi_square_bound(SLOTS - 1));
}
END_TEST

/* T = 4, K = 1, V = 6: two keys, three values, one slot: six sequences in all. */
START_TEST(draws_kept_apart_never_give_a_held_sequence)
{
    const MqarShape s = { 6, 4, 1 };
    MqarSet held = mqar_set_new(4, 6), seen = mqar_set_new(4, 6);
    int tokens[4], labels[4];
    Rng rng;
    rng_seed(&rng, 14, 5);
    while (held.count < 3) {
        mqar_draw(&rng, s, tokens, labels);
        mqar_set_add(&held, tokens);
    }
    long rejected = 0;
    for (int b = 0; b < 3000; b++) {
        rejected += mqar_draw_apart(&rng, s, &held, tokens, labels);
        ck_assert(!mqar_set_has(&held, tokens));
        ck_assert(well_formed(s, tokens, labels));
        mqar_set_add(&seen, tokens);
    }
    ck_assert_int_eq(seen.count, 3);
    ck_assert_int_gt(rejected, 0);
    mqar_set_free(&held);
    mqar_set_free(&seen);
}
END_TEST

START_TEST(the_set_holds_what_was_added_and_nothing_else)
{
    MqarSet set = mqar_set_new(3, 100);
    for (int i = 0; i < 100; i++) {
        const int row[3] = { i, i * i, -i };
        ck_assert(mqar_set_add(&set, row));
        ck_assert(!mqar_set_add(&set, row));
    }
    for (int i = 0; i < 200; i++) {
        const int row[3] = { i, i * i, -i }, other[3] = { i, i * i, i + 1 };
        ck_assert(mqar_set_has(&set, row) == (i < 100));
        ck_assert(!mqar_set_has(&set, other));
    }
    ck_assert_int_eq(set.count, 100);
    mqar_set_free(&set);
}
END_TEST

enum { D = 64 };

static double largest_error(const double *state, const double *keys, const double *values,
                            int pairs)
{
    double worst = 0.0, out[D];    /* kept by comparison, as below */
    for (int i = 0; i < pairs; i++) {
        state_read(D, state, &keys[i * D], out);
        for (int c = 0; c < D; c++)
            if (fabs(out[c] - values[i * D + c]) > worst)
                worst = fabs(out[c] - values[i * D + c]);
    }
    return worst;
}

START_TEST(orthonormal_keys_are_read_back_exactly_by_both_rules)
{
    static double keys[D * D], values[D * D], state[D * D];
    Rng rng;
    rng_seed(&rng, 14, 6);
    capacity_orthonormal_keys(&rng, D, D, keys);
    for (int e = 0; e < D * D; e++)
        values[e] = rng_normal(&rng);
    state_write_sum(D, D, keys, values, state);
    ck_assert_double_lt(largest_error(state, keys, values, D), 1e-12);
    state_write_delta(D, D, keys, values, 1.0, state);
    ck_assert_double_lt(largest_error(state, keys, values, D), 1e-12);
}
END_TEST

START_TEST(the_delta_rule_reads_its_last_pair_exactly)
{
    enum { K = 100 };
    static double keys[K * D], values[K * D], state[D * D];
    Rng rng;
    rng_seed(&rng, 14, 7);
    capacity_unit_keys(&rng, D, K, keys);
    for (int e = 0; e < K * D; e++)
        values[e] = rng_normal(&rng);
    for (int pairs = 1; pairs <= K; pairs += 33) {
        state_write_delta(D, pairs, keys, values, 1.0, state);
        ck_assert_double_lt(largest_error(state, &keys[(pairs - 1) * D],
                                          &values[(pairs - 1) * D], 1), 1e-12);
    }
}
END_TEST

/* Linear attention on random unit keys: the crosstalk per entry has variance (K - 1)/d.  The
 * mean of 400 trials is within four standard errors, estimated from the trials themselves. */
START_TEST(linear_crosstalk_has_variance_k_minus_one_over_d)
{
    enum { K = 16, TRIALS = 400 };
    static double keys[K * D], values[K * D], state[D * D];
    double out[D], sum = 0.0, square = 0.0;
    Rng rng;
    rng_seed(&rng, 14, 8);
    for (int trial = 0; trial < TRIALS; trial++) {
        capacity_unit_keys(&rng, D, K, keys);
        for (int e = 0; e < K * D; e++)
            values[e] = rng_normal(&rng);
        state_write_sum(D, K, keys, values, state);
        double mean = 0.0;
        for (int i = 0; i < K; i++) {
            state_read(D, state, &keys[i * D], out);
            for (int c = 0; c < D; c++)
                mean += (out[c] - values[i * D + c]) * (out[c] - values[i * D + c]);
        }
        mean /= K * D;
        sum += mean;
        square += mean * mean;
    }
    const double mean = sum / TRIALS;
    const double error = sqrt((square / TRIALS - mean * mean) / (TRIALS - 1));
    ck_assert_double_lt(fabs(mean - (K - 1.0) / D), 4 * error);
    ck_assert_double_lt(error, 0.02 * (K - 1.0) / D);
}
END_TEST

START_TEST(one_pair_is_always_read_back)
{
    Rng rng;
    rng_seed(&rng, 14, 9);
    for (int rule = CAPACITY_LINEAR; rule <= CAPACITY_DELTA; rule++)
        ck_assert_double_eq(capacity_trial(&rng, (CapacityRule)rule, D, 1), 1.0);
}
END_TEST

START_TEST(the_feature_map_is_elu_plus_one)
{
    ck_assert_double_eq(linear_feature64(2.0), 3.0);
    ck_assert_double_eq(linear_feature64(0.0), 1.0);
    ck_assert_double_eq_tol(linear_feature64(-1.0), exp(-1.0), 1e-15);
    ck_assert_float_eq_tol(linear_feature32(-1.0f), expf(-1.0f), 1e-7f);
}
END_TEST

/* The recurrent and parallel forms, on random q, k, v: in double within 1e-12 of the largest
 * output, in float within n times float's epsilon, n the length. */
static void compare_forms(int n, int dk, int dv, bool normalise)
{
    Matrix64 q = matrix_new64(n, dk), k = matrix_new64(n, dk), v = matrix_new64(n, dv);
    Matrix64 a = matrix_new64(n, dv), b = matrix_new64(n, dv);
    Matrix32 q32 = matrix_new32(n, dk), k32 = matrix_new32(n, dk), v32 = matrix_new32(n, dv);
    Matrix32 a32 = matrix_new32(n, dv), b32 = matrix_new32(n, dv);
    Rng rng;
    rng_seed(&rng, 14, 10 + (uint64_t)n);
    for (int e = 0; e < n * dk; e++) {
        q.data[e] = rng_normal(&rng), k.data[e] = rng_normal(&rng);
        q32.data[e] = (float)q.data[e], k32.data[e] = (float)k.data[e];
    }
    for (int e = 0; e < n * dv; e++)
        v.data[e] = rng_normal(&rng), v32.data[e] = (float)v.data[e];
    linear_recurrent64(q, k, v, normalise, a);
    linear_parallel64(q, k, v, normalise, b);
    linear_recurrent32(q32, k32, v32, normalise, a32);
    linear_parallel32(q32, k32, v32, normalise, b32);
    double largest = 0.0, diff = 0.0, largest32 = 0.0, diff32 = 0.0;
    for (int e = 0; e < n * dv; e++) {
        /* by comparison, not fmax: gcc 12's aarch64 vectoriser fails on fmax's reduction */
        if (fabs(a.data[e]) > largest)
            largest = fabs(a.data[e]);
        if (fabs(a.data[e] - b.data[e]) > diff)
            diff = fabs(a.data[e] - b.data[e]);
        if (fabs((double)a32.data[e]) > largest32)
            largest32 = fabs((double)a32.data[e]);
        if (fabs((double)a32.data[e] - b32.data[e]) > diff32)
            diff32 = fabs((double)a32.data[e] - b32.data[e]);
    }
    ck_assert_double_lt(diff, 1e-12 * largest);
    ck_assert_double_lt(diff32, n * 1.2e-7 * largest32);
    Matrix64 *all[] = { &q, &k, &v, &a, &b };
    Matrix32 *all32[] = { &q32, &k32, &v32, &a32, &b32 };
    for (int m = 0; m < 5; m++)
        matrix_free64(all[m]), matrix_free32(all32[m]);
}

START_TEST(the_recurrent_and_parallel_forms_agree)
{
    const int lengths[] = { 1, 7, 56, 211 };
    for (int i = 0; i < 4; i++) {
        compare_forms(lengths[i], 8, 5, false);
        compare_forms(lengths[i], 8, 5, true);
    }
}
END_TEST

/* The delta rule's recurrent and chunked forms, from a random state, on unit keys and queries
 * and strengths in (0, 1): outputs and final states agree in double within 1e-12 of the
 * largest, and in float within 32 float epsilons of the largest (the worst seen at these
 * sizes is about 3.4 epsilons; the chapter is to derive the bound). */
static void random_rows(Rng *rng, Matrix64 m, bool unit)
{
    for (int r = 0; r < m.rows; r++) {
        double sum = 0.0;
        for (int c = 0; c < m.cols; c++) {
            AT(m, r, c) = rng_normal(rng);
            sum += AT(m, r, c) * AT(m, r, c);
        }
        for (int c = 0; c < m.cols && unit; c++)
            AT(m, r, c) /= sqrt(sum);
    }
}

static Matrix32 narrow(Matrix64 m)
{
    Matrix32 f = matrix_new32(m.rows, m.cols);
    for (int e = 0; e < m.rows * m.cols; e++)
        f.data[e] = (float)m.data[e];
    return f;
}

static double relative_gap(const double *a, const double *b, int n)
{
    double largest = 0.0, gap = 0.0;
    for (int e = 0; e < n; e++) {
        if (fabs(a[e]) > largest)
            largest = fabs(a[e]);
        if (fabs(a[e] - b[e]) > gap)
            gap = fabs(a[e] - b[e]);
    }
    return gap / largest;
}

static double relative_gap32(const float *a, const float *b, int n)
{
    double largest = 0.0, gap = 0.0;
    for (int e = 0; e < n; e++) {
        if (fabs((double)a[e]) > largest)
            largest = fabs((double)a[e]);
        if (fabs((double)a[e] - b[e]) > gap)
            gap = fabs((double)a[e] - b[e]);
    }
    return gap / largest;
}

static void compare_delta(int n, int chunk, double *worst64, double *worst32)
{
    enum { DK = 16, DV = 12 };
    Rng rng;
    rng_seed(&rng, 14, 100 + (uint64_t)n);
    Matrix64 q = matrix_new64(n, DK), k = matrix_new64(n, DK), v = matrix_new64(n, DV);
    Matrix64 s0 = matrix_new64(DK, DV), s1 = matrix_new64(DK, DV), s2 = matrix_new64(DK, DV);
    Matrix64 a = matrix_new64(n, DV), b = matrix_new64(n, DV);
    double *beta = malloc((size_t)n * sizeof *beta);
    float *beta32 = malloc((size_t)n * sizeof *beta32);
    random_rows(&rng, q, true);
    random_rows(&rng, k, true);
    random_rows(&rng, v, false);
    random_rows(&rng, s0, false);
    for (int t = 0; t < n; t++)
        beta[t] = rng_uniform(&rng), beta32[t] = (float)beta[t];
    memcpy(s1.data, s0.data, sizeof(double) * DK * DV);
    memcpy(s2.data, s0.data, sizeof(double) * DK * DV);
    delta_recurrent64(q, k, v, beta, s1, a);
    delta_chunked64(q, k, v, beta, chunk, s2, b);
    *worst64 = fmax(relative_gap(a.data, b.data, n * DV),
                    relative_gap(s1.data, s2.data, DK * DV));
    Matrix32 q32 = narrow(q), k32 = narrow(k), v32 = narrow(v), a32 = narrow(a), b32 = narrow(b);
    Matrix32 t1 = narrow(s0), t2 = narrow(s0);
    delta_recurrent32(q32, k32, v32, beta32, t1, a32);
    delta_chunked32(q32, k32, v32, beta32, chunk, t2, b32);
    *worst32 = fmax(relative_gap32(a32.data, b32.data, n * DV),
                    relative_gap32(t1.data, t2.data, DK * DV));
    Matrix64 *all[] = { &q, &k, &v, &s0, &s1, &s2, &a, &b };
    for (int m = 0; m < 8; m++)
        matrix_free64(all[m]);
    Matrix32 *all32[] = { &q32, &k32, &v32, &a32, &b32, &t1, &t2 };
    for (int m = 0; m < 7; m++)
        matrix_free32(all32[m]);
    free(beta);
    free(beta32);
}

START_TEST(the_chunked_delta_rule_is_the_recurrent_one)
{
    const int lengths[] = { 1, 56, 211, 400 }, chunks[] = { 1, 16, 32, 64 };
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 4; c++) {
            double worst64, worst32;
            compare_delta(lengths[i], chunks[c], &worst64, &worst32);
            ck_assert_double_lt(worst64, 1e-12);
            ck_assert_double_lt(worst32, 32 * FLT_EPSILON);
        }
}
END_TEST

START_TEST(draw_refuses_a_vocabulary_not_above_the_length)
{
    int tokens[8], labels[8];
    Rng rng;
    rng_seed(&rng, 1, 1);
    mqar_draw(&rng, (MqarShape){ 8, 8, 2 }, tokens, labels);
}
END_TEST

START_TEST(draw_refuses_more_pairs_than_a_quarter_of_the_length)
{
    int tokens[8], labels[8];
    Rng rng;
    rng_seed(&rng, 1, 1);
    mqar_draw(&rng, (MqarShape){ 100, 8, 3 }, tokens, labels);
}
END_TEST

START_TEST(draw_apart_refuses_a_set_that_holds_every_sequence)
{
    const MqarShape s = { 6, 4, 1 };
    MqarSet all = mqar_set_new(4, 6);
    int tokens[4], labels[4];
    Rng rng;
    rng_seed(&rng, 1, 1);
    while (all.count < 6) {
        mqar_draw(&rng, s, tokens, labels);
        mqar_set_add(&all, tokens);
    }
    mqar_draw_apart(&rng, s, &all, tokens, labels);
}
END_TEST

void linear_fast_tcases(Suite *suite);

Suite *linear_suite(void)
{
    Suite *suite = suite_create("linear");
    TCase *task = tcase_create("task");
    tcase_add_test(task, sequences_are_well_formed);
    tcase_add_test(task, one_query_follows_the_law_of_the_slots);
    tcase_add_test(task, two_queries_follow_the_law_without_replacement);
    tcase_add_test(task, a_flat_law_fails_the_test);
    tcase_add_test(task, draws_kept_apart_never_give_a_held_sequence);
    tcase_add_test(task, the_set_holds_what_was_added_and_nothing_else);
    suite_add_tcase(suite, task);
    TCase *capacity = tcase_create("capacity");
    tcase_add_test(capacity, orthonormal_keys_are_read_back_exactly_by_both_rules);
    tcase_add_test(capacity, the_delta_rule_reads_its_last_pair_exactly);
    tcase_add_test(capacity, linear_crosstalk_has_variance_k_minus_one_over_d);
    tcase_add_test(capacity, one_pair_is_always_read_back);
    suite_add_tcase(suite, capacity);
    TCase *forms = tcase_create("forms");
    tcase_add_test(forms, the_feature_map_is_elu_plus_one);
    tcase_add_test(forms, the_recurrent_and_parallel_forms_agree);
    tcase_add_test(forms, the_chunked_delta_rule_is_the_recurrent_one);
    suite_add_tcase(suite, forms);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, draw_refuses_a_vocabulary_not_above_the_length,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, draw_refuses_more_pairs_than_a_quarter_of_the_length,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, draw_apart_refuses_a_set_that_holds_every_sequence,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    linear_fast_tcases(suite);
    return suite;
}

/* The fast chunked kernel (section "What each costs"): against the chapter's recurrent and
 * chunked forms in double, and the chunked form in float, from a random state, on unit keys and
 * queries and strengths in (0, 1), at lengths that are no multiple of a chunk, for every chunk
 * this build allows; within ceil(n / C) (d + C) float epsilons of the largest entry of the
 * outputs and the state (twice that against the float form, which has its own rounding). */
static double fast_gap(const Matrix64 *a, const Matrix64 *s, const Matrix32 *b,
                       const Matrix32 *t)
{
    double largest = 0.0, gap = 0.0;
    for (int e = 0; e < a->rows * a->cols; e++) {
        largest = fabs(a->data[e]) > largest ? fabs(a->data[e]) : largest;
        gap = fabs(a->data[e] - b->data[e]) > gap ? fabs(a->data[e] - b->data[e]) : gap;
    }
    for (int e = 0; e < s->rows * s->cols; e++) {
        largest = fabs(s->data[e]) > largest ? fabs(s->data[e]) : largest;
        gap = fabs(s->data[e] - t->data[e]) > gap ? fabs(s->data[e] - t->data[e]) : gap;
    }
    return gap / largest;
}

static void compare_fast(int n, int d, int chunk)
{
    Rng rng;
    rng_seed(&rng, 14, 500 + (uint64_t)n + (uint64_t)d);
    Matrix64 q = matrix_new64(n, d), k = matrix_new64(n, d), v = matrix_new64(n, d);
    Matrix64 s0 = matrix_new64(d, d), s1 = matrix_new64(d, d), s2 = matrix_new64(d, d);
    Matrix64 a = matrix_new64(n, d), b = matrix_new64(n, d);
    double *beta = malloc((size_t)n * sizeof *beta);
    float *beta32 = malloc((size_t)n * sizeof *beta32);
    random_rows(&rng, q, true);
    random_rows(&rng, k, true);
    random_rows(&rng, v, false);
    random_rows(&rng, s0, false);
    for (int t = 0; t < n; t++)
        beta[t] = rng_uniform(&rng), beta32[t] = (float)beta[t];
    memcpy(s1.data, s0.data, sizeof(double) * d * d);
    memcpy(s2.data, s0.data, sizeof(double) * d * d);
    delta_recurrent64(q, k, v, beta, s1, a);
    delta_chunked64(q, k, v, beta, chunk, s2, b);
    Matrix32 q32 = narrow(q), k32 = narrow(k), v32 = narrow(v), o32 = narrow(a);
    Matrix32 c32 = narrow(a), t32 = narrow(s0), u32 = narrow(s0);
    delta_fast(q32, k32, v32, beta32, chunk, 2, t32, o32);
    delta_chunked32(q32, k32, v32, beta32, chunk, u32, c32);
    const double bound = ((n + chunk - 1) / chunk) * (d + chunk) * (double)FLT_EPSILON;
    ck_assert_double_le(fast_gap(&a, &s1, &o32, &t32), bound);
    ck_assert_double_le(fast_gap(&b, &s2, &o32, &t32), bound);
    Matrix64 fast = matrix_new64(n, d), state = matrix_new64(d, d);
    for (int e = 0; e < n * d; e++)
        fast.data[e] = o32.data[e];
    for (int e = 0; e < d * d; e++)
        state.data[e] = t32.data[e];
    ck_assert_double_le(fast_gap(&fast, &state, &c32, &u32), 2 * bound);
    Matrix64 *all[] = { &q, &k, &v, &s0, &s1, &s2, &a, &b, &fast, &state };
    for (size_t m = 0; m < sizeof all / sizeof *all; m++)
        matrix_free64(all[m]);
    Matrix32 *all32[] = { &q32, &k32, &v32, &o32, &c32, &t32, &u32 };
    for (size_t m = 0; m < sizeof all32 / sizeof *all32; m++)
        matrix_free32(all32[m]);
    free(beta);
    free(beta32);
}

START_TEST(the_fast_kernel_is_the_chunked_form)
{
    int sizes[DELTA_FAST_MOST_CHUNKS];
    const int count = delta_fast_chunks(sizes), lengths[] = { 1, 56, 211, 400 };
    ck_assert_int_ge(count, 1);
    for (int c = 0; c < count; c++) {
        ck_assert(delta_fast_supports(32, sizes[c]) && sizes[c] % 8 == 0);
        for (int i = 0; i < 4; i++)
            compare_fast(lengths[i], 32, sizes[c]);
        compare_fast(211, 64, sizes[c]);
    }
}
END_TEST

/* Each chunk and each slice of columns is computed the same way whichever thread takes it. */
START_TEST(the_fast_kernel_gives_the_same_bits_on_any_threads)
{
    enum { N = 211, D = 64 };
    int sizes[DELTA_FAST_MOST_CHUNKS];
    delta_fast_chunks(sizes);
    Rng rng;
    rng_seed(&rng, 14, 600);
    Matrix32 q = matrix_new_normal(N, D, &rng, 0.125f);
    Matrix32 k = matrix_new_normal(N, D, &rng, 0.125f);
    Matrix32 v = matrix_new_normal(N, D, &rng, 1.0f);
    Matrix32 s0 = matrix_new_normal(D, D, &rng, 1.0f);
    float beta[N];
    for (int t = 0; t < N; t++)
        beta[t] = (float)rng_uniform(&rng);
    Matrix32 out[3], state[3];
    for (int threads = 1; threads <= 3; threads++) {
        out[threads - 1] = matrix_new32(N, D);
        state[threads - 1] = matrix_new32(D, D);
        memcpy(state[threads - 1].data, s0.data, sizeof(float) * D * D);
        delta_fast(q, k, v, beta, sizes[0], threads, state[threads - 1], out[threads - 1]);
    }
    for (int i = 1; i < 3; i++) {
        ck_assert(memcmp(out[0].data, out[i].data, sizeof(float) * N * D) == 0);
        ck_assert(memcmp(state[0].data, state[i].data, sizeof(float) * D * D) == 0);
    }
    Matrix32 *all[] = { &q, &k, &v, &s0, &out[0], &out[1], &out[2], &state[0], &state[1],
                        &state[2] };
    for (size_t m = 0; m < sizeof all / sizeof *all; m++)
        matrix_free32(all[m]);
}
END_TEST

/* The closed form of the chunked form's FLOPs against the products' sizes, summed one by one. */
static double counted_flops(int n, int d, int chunk)
{
    double macs = 0.0;
    for (int first = 0; first < n; first += chunk) {
        const int c = n - first < chunk ? n - first : chunk;
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < i; j++)
                macs += d + (j + 1);            /* k_i . k_j, and row j of T into row i */
            macs += 2.0 * (i + 1) * d;          /* row i of T K and of T V */
            macs += 3.0 * d * d;                /* row i of W S and of Q S, K^T u's term i */
            macs += 2.0 * (i + 1) * d;          /* q_i . k_j for j <= i, and their mix of u */
        }
    }
    return 2.0 * macs;
}

START_TEST(the_chunked_flops_are_the_products_counted)
{
    const int lengths[] = { 1, 47, 48, 211, 400 }, widths[] = { 32, 64 };
    const int chunks[] = { 1, 16, 48, 64 };
    for (int i = 0; i < 5; i++)
        for (int w = 0; w < 2; w++)
            for (int c = 0; c < 4; c++)
                ck_assert_double_eq(delta_chunked_flops(lengths[i], widths[w], chunks[c]),
                                    counted_flops(lengths[i], widths[w], chunks[c]));
}
END_TEST

static void fast_on(int d, int chunk)
{
    Matrix32 q = matrix_new32(8, d), s = matrix_new32(d, d), o = matrix_new32(8, d);
    float beta[8] = { 0 };
    delta_fast(q, q, q, beta, chunk, 1, s, o);
}

START_TEST(the_fast_kernel_refuses_a_width_not_a_multiple_of_32)
{
    int sizes[DELTA_FAST_MOST_CHUNKS];
    delta_fast_chunks(sizes);
    fast_on(48, sizes[0]);
}
END_TEST

START_TEST(the_fast_kernel_refuses_a_chunk_that_holds_no_whole_tiles)
{
    fast_on(32, 13);
}
END_TEST

void linear_fast_tcases(Suite *suite)
{
    TCase *fast = tcase_create("fast");
    tcase_add_test(fast, the_fast_kernel_is_the_chunked_form);
    tcase_add_test(fast, the_fast_kernel_gives_the_same_bits_on_any_threads);
    tcase_add_test(fast, the_chunked_flops_are_the_products_counted);
    suite_add_tcase(suite, fast);
    TCase *refused = tcase_create("fast refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, the_fast_kernel_refuses_a_width_not_a_multiple_of_32,
                                SIGABRT);
    tcase_add_test_raise_signal(refused,
                                the_fast_kernel_refuses_a_chunk_that_holds_no_whole_tiles,
                                SIGABRT);
    suite_add_tcase(suite, refused);
}
