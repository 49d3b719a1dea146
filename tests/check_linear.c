/* Tests of the linear module (chapter 14): the MQAR generator's sequences well formed (keys and
 * values in their ranges and distinct, each key asked once at an even offset after the pairs,
 * labels only at the queries, fillers 0); the law of the query slots by Pearson's chi-square
 * with one pair and with two; draws kept apart from a set never giving its sequences; the
 * capacity's closed forms (both rules exact on d orthonormal keys, the delta rule exact on its
 * last pair, linear attention's crosstalk variance (K - 1)/d), and the capacity's writes and
 * count of right answers against the obvious loops; the recurrent and parallel forms of linear
 * attention against each other, in double and in float; the delta rule's chunked form
 * against its recurrent one, within the chapter's estimate of the rounding; the rules as
 * layers; and the MQAR model's read-out, gradient and shards (see the blocks before the
 * suite). */
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

/* A matrix of n rows of width D over an array: the capacity's functions take matrices. */
static Matrix64 rows_of(double *data, int n)
{
    return (Matrix64){ n, D, data };
}

static double largest_error(double *state, double *keys, const double *values, int pairs)
{
    static double out[2 * D * D];
    double worst = 0.0;    /* kept by comparison, as below */
    state_read(rows_of(state, D), rows_of(keys, pairs), rows_of(out, pairs));
    for (int e = 0; e < pairs * D; e++)
        if (fabs(out[e] - values[e]) > worst)
            worst = fabs(out[e] - values[e]);
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
    state_write_sum(rows_of(keys, D), rows_of(values, D), rows_of(state, D));
    ck_assert_double_lt(largest_error(state, keys, values, D), 1e-12);
    state_write_delta(rows_of(keys, D), rows_of(values, D), 1.0, rows_of(state, D));
    ck_assert_double_lt(largest_error(state, keys, values, D), 1e-12);
}
END_TEST

static double largest_gap(const double *a, const double *b, int n)
{
    double gap = 0.0;
    for (int e = 0; e < n; e++)
        if (fabs(a[e] - b[e]) > gap)
            gap = fabs(a[e] - b[e]);
    return gap;
}

/* The writes against the obvious loops: the sum of the outer products k_i v_i^T, and the delta
 * rule one pair at a time, S += beta k (v - S^T k)^T, on random unit keys. */
START_TEST(the_writes_are_the_obvious_loops)
{
    enum { K = 100 };
    static double keys[K * D], values[K * D], state[D * D], slow[D * D];
    double error[D];
    Rng rng;
    rng_seed(&rng, 14, 11);
    capacity_unit_keys(&rng, D, K, keys);
    for (int e = 0; e < K * D; e++)
        values[e] = rng_normal(&rng);
    state_write_sum(rows_of(keys, K), rows_of(values, K), rows_of(state, D));
    memset(slow, 0, sizeof slow);
    for (int i = 0; i < K; i++)
        for (int a = 0; a < D; a++)
            for (int c = 0; c < D; c++)
                slow[a * D + c] += keys[i * D + a] * values[i * D + c];
    ck_assert_double_lt(largest_gap(state, slow, D * D), 1e-12);
    state_write_delta(rows_of(keys, K), rows_of(values, K), 0.75, rows_of(state, D));
    memset(slow, 0, sizeof slow);
    for (int i = 0; i < K; i++) {
        for (int c = 0; c < D; c++) {
            error[c] = values[i * D + c];
            for (int a = 0; a < D; a++)
                error[c] -= slow[a * D + c] * keys[i * D + a];
        }
        for (int a = 0; a < D; a++)
            for (int c = 0; c < D; c++)
                slow[a * D + c] += 0.75 * keys[i * D + a] * error[c];
    }
    ck_assert_double_lt(largest_gap(state, slow, D * D), 1e-12);
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
        state_write_delta(rows_of(keys, pairs), rows_of(values, pairs), 1.0,
                          rows_of(state, D));
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
    static double keys[K * D], values[K * D], state[D * D], out[K * D];
    double sum = 0.0, square = 0.0;
    Rng rng;
    rng_seed(&rng, 14, 8);
    for (int trial = 0; trial < TRIALS; trial++) {
        capacity_unit_keys(&rng, D, K, keys);
        for (int e = 0; e < K * D; e++)
            values[e] = rng_normal(&rng);
        state_write_sum(rows_of(keys, K), rows_of(values, K), rows_of(state, D));
        state_read(rows_of(state, D), rows_of(keys, K), rows_of(out, K));
        double mean = 0.0;
        for (int e = 0; e < K * D; e++)
            mean += (out[e] - values[e]) * (out[e] - values[e]);
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

/* The count of read-outs nearest in angle to their own value, against cosines computed one at
 * a time, on read-outs that are their value plus noise of growing size, so that some are
 * answered right and some wrong. */
START_TEST(the_right_answers_are_counted_by_angle)
{
    enum { K = 40 };
    static double values[K * D], out[K * D];
    Rng rng;
    rng_seed(&rng, 14, 12);
    for (int e = 0; e < K * D; e++)
        values[e] = rng_normal(&rng);
    for (int i = 0; i < K; i++)
        for (int c = 0; c < D; c++)
            out[i * D + c] = values[i * D + c] + 0.1 * i * rng_normal(&rng);
    int right = 0;
    for (int i = 0; i < K; i++) {
        int best = 0;
        double best_cosine = -2.0;
        for (int j = 0; j < K; j++) {
            double dot = 0.0, vv = 0.0, oo = 0.0;
            for (int c = 0; c < D; c++) {
                dot += values[j * D + c] * out[i * D + c];
                vv += values[j * D + c] * values[j * D + c];
                oo += out[i * D + c] * out[i * D + c];
            }
            if (dot / sqrt(vv * oo) > best_cosine)
                best = j, best_cosine = dot / sqrt(vv * oo);
        }
        right += best == i;
    }
    ck_assert_int_gt(right, 0);
    ck_assert_int_lt(right, K);
    ck_assert_int_eq(capacity_right(rows_of(values, K), rows_of(out, K)), right);
}
END_TEST

START_TEST(one_pair_is_always_read_back)
{
    Rng rng;
    rng_seed(&rng, 14, 9);
    double share[CAPACITY_RULES];
    capacity_trial(&rng, D, 1, share);
    for (int rule = 0; rule < CAPACITY_RULES; rule++)
        ck_assert_double_eq(share[rule], 1.0);
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
        v.data[e] = fabs(rng_normal(&rng)), v32.data[e] = (float)v.data[e];
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
 * and strengths in (0, 1), all rounded to float once: the chunked form in float against the
 * recurrent form in double, on outputs and final states relative to the largest, within the
 * chapter's estimate tau for the chunk; in double, the two forms within 2 tau (each within tau
 * of the exact result), with double's epsilon. */
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

static void compare_delta(int n, int chunk)
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
        beta32[t] = (float)rng_uniform(&rng), beta[t] = beta32[t];
    Matrix32 q32 = narrow(q), k32 = narrow(k), v32 = narrow(v), b32 = narrow(b);
    Matrix32 t2 = narrow(s0);
    matrix_widen(q32, q), matrix_widen(k32, k), matrix_widen(v32, v), matrix_widen(t2, s0);
    memcpy(s1.data, s0.data, sizeof(double) * DK * DV);
    memcpy(s2.data, s0.data, sizeof(double) * DK * DV);
    delta_recurrent64(q, k, v, beta, s1, a);
    delta_chunked64(q, k, v, beta, chunk, s2, b);
    const double worst64 = fmax(relative_gap(a.data, b.data, n * DV),
                                relative_gap(s1.data, s2.data, DK * DV));
    ck_assert_double_lt(worst64, 2 * delta_chunked_tolerance64(DK, chunk));
    delta_chunked32(q32, k32, v32, beta32, chunk, t2, b32);
    matrix_widen(b32, b), matrix_widen(t2, s2);
    const double worst32 = fmax(relative_gap(a.data, b.data, n * DV),
                                relative_gap(s1.data, s2.data, DK * DV));
    ck_assert_double_lt(worst32, delta_chunked_tolerance32(DK, chunk));
    Matrix64 *all[] = { &q, &k, &v, &s0, &s1, &s2, &a, &b };
    for (int m = 0; m < 8; m++)
        matrix_free64(all[m]);
    Matrix32 *all32[] = { &q32, &k32, &v32, &b32, &t2 };
    for (int m = 0; m < 5; m++)
        matrix_free32(all32[m]);
    free(beta);
    free(beta32);
}

START_TEST(the_chunked_delta_rule_is_the_recurrent_one)
{
    const int lengths[] = { 1, 56, 211, 400 }, chunks[] = { 1, 16, 32, 64 };
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 4; c++)
            compare_delta(lengths[i], chunks[c]);
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

/* The MQAR model (section "The race on MQAR"): the read-out at the queries alone against the
 * whole sequence's logits; the model's gradient against central differences for each mixer;
 * the shards' sum against one pass over the whole batch. */
enum { MODEL_BATCH = 3 };

typedef struct {
    MqarModel64 *model;
    MqarWork64 *work;
    const int *tokens, *labels;
} ModelLoss;

static double model_loss(void *context)
{
    ModelLoss *c = context;
    return mqar_forward64(c->model, c->tokens, c->labels, c->work, NULL);
}

static const MqarShape small_task = { 24, 16, 2 };

static void draw_batch(uint64_t stream, int *tokens, int *labels)
{
    Rng rng;
    rng_seed(&rng, 14, stream);
    for (int b = 0; b < MODEL_BATCH; b++)
        mqar_draw(&rng, small_task, &tokens[b * small_task.length],
                  &labels[b * small_task.length]);
}

static MqarModel64 started_model(MqarMixer mixer, uint64_t stream)
{
    MqarModel64 m = mqar_model_new64(small_task, 8, 2, mixer);
    KitParam64 list[MQAR_MOST_PARAMS];
    const int count = mqar_model_params64(&m, list);
    Rng rng;
    rng_seed(&rng, 15, stream);
    kit_init64(list, count, &rng);
    return m;
}

START_TEST(the_model_reads_out_the_queries_alone)
{
    int tokens[MODEL_BATCH * 16], labels[MODEL_BATCH * 16];
    draw_batch(1, tokens, labels);
    MqarModel64 m = started_model(MQAR_ATTENTION, 1);
    MqarWork64 w = mqar_work_new64(&m, MODEL_BATCH);
    int right = -1;
    const double loss = mqar_forward64(&m, tokens, labels, &w, &right);
    /* every row's logits, from the stack's last state, then the labelled rows picked */
    const int rows = MODEL_BATCH * small_task.length, vocab = small_task.vocab;
    Matrix64 all = matrix_new64(rows, vocab);
    matrix_multiply64(w.stack.x[m.stack.layers], m.unembed, all);
    double expected = 0.0;
    int expected_right = 0, queries = 0;
    for (int t = 0; t < rows; t++) {
        if (labels[t] == MQAR_UNLABELLED)
            continue;
        double *row = &all.data[(size_t)t * vocab], most = row[0], sum = 0.0;
        int best = 0;
        for (int v = 1; v < vocab; v++)
            if (row[v] > most) {
                most = row[v];
                best = v;
            }
        for (int v = 0; v < vocab; v++)
            sum += exp(row[v] - most);
        expected += most + log(sum) - row[labels[t]];
        expected_right += best == labels[t];
        queries++;
    }
    ck_assert_int_eq(queries, MODEL_BATCH * small_task.pairs);
    ck_assert_double_eq_tol(loss, expected / queries, 1e-12);
    ck_assert_int_eq(right, expected_right);
    matrix_free64(&all);
    mqar_work_free64(&w);
    mqar_model_free64(&m);
}
END_TEST

START_TEST(the_model_gradient_matches_central_differences)
{
    const MqarMixer mixer = (MqarMixer)_i;
    int tokens[MODEL_BATCH * 16], labels[MODEL_BATCH * 16];
    draw_batch(2, tokens, labels);
    MqarModel64 m = started_model(mixer, 2);
    MqarModel64 grad = mqar_model_new64(small_task, 8, 2, mixer);
    MqarWork64 w = mqar_work_new64(&m, MODEL_BATCH);
    const double weight = 1.0 / (MODEL_BATCH * small_task.pairs);
    mqar_forward64(&m, tokens, labels, &w, NULL);
    mqar_backward64(&m, tokens, &w, weight, &grad);
    KitParam64 params[MQAR_MOST_PARAMS], gradient[MQAR_MOST_PARAMS];
    const int count = mqar_model_params64(&m, params);
    ck_assert_int_eq(mqar_model_params64(&grad, gradient), count);
    ModelLoss context = { &m, &w, tokens, labels };
    const KitCheck check = kit_gradient_check(params, gradient, count, model_loss,
                                              &context, 1e-5);
    ck_assert_msg(check.worst < 1e-6, "mixer %d: worst matrix %d differs by %g", mixer,
                  check.worst_matrix, check.worst);
    mqar_work_free64(&w);
    mqar_model_free64(&grad);
    mqar_model_free64(&m);
}
END_TEST

START_TEST(the_shards_add_up_to_one_pass_over_the_batch)
{
    const MqarMixer mixer = (MqarMixer)_i;
    int tokens[MODEL_BATCH * 16], labels[MODEL_BATCH * 16];
    draw_batch(3, tokens, labels);
    MqarModel64 m = started_model(mixer, 3);
    MqarModel64 whole = mqar_model_new64(small_task, 8, 2, mixer);
    MqarModel64 sharded = mqar_model_new64(small_task, 8, 2, mixer);
    MqarWork64 w = mqar_work_new64(&m, MODEL_BATCH);
    const double loss = mqar_forward64(&m, tokens, labels, &w, NULL);
    mqar_backward64(&m, tokens, &w, 1.0 / (MODEL_BATCH * small_task.pairs), &whole);
    MqarShards64 b = mqar_shards_new64(&m, MODEL_BATCH);
    ck_assert_int_eq(b.shards, MODEL_BATCH);
    ck_assert_double_eq_tol(mqar_gradient64(&b, &m, tokens, labels, &sharded), loss,
                            1e-12);
    KitParam64 one[MQAR_MOST_PARAMS], parts[MQAR_MOST_PARAMS];
    const int count = mqar_model_params64(&whole, one);
    mqar_model_params64(&sharded, parts);
    for (int p = 0; p < count; p++)
        ck_assert_double_le(relative_difference(parts[p].data, one[p].data,
                                                one[p].rows * one[p].cols), 1e-12);
    mqar_shards_free64(&b);
    mqar_work_free64(&w);
    mqar_model_free64(&sharded);
    mqar_model_free64(&whole);
    mqar_model_free64(&m);
}
END_TEST
/* The rules as layers (section "The rules as layers"): the layer's sweeps against the
 * chapter's recurrent forms; each layer alone and a stack of two against central differences
 * in double, every entry; a layer causal and its sequences apart; the float build against the
 * double one. */
typedef struct {
    const KitMixer64 *mixer;
    void *layer;
    void *trace;
    Matrix64 x, y, gain;
    int length;
} LayerCase;

static double layer_loss(void *lc)
{
    LayerCase *c = lc;
    c->mixer->forward(c->layer, c->x, c->length, c->trace, c->y);
    double loss = 0.0;
    for (int e = 0; e < c->y.rows * c->y.cols; e++)
        loss += c->gain.data[e] * c->y.data[e];
    return loss;
}

static void fill_normal(Rng *rng, Matrix64 m, double scale)
{
    for (int e = 0; e < m.rows * m.cols; e++)
        m.data[e] = scale * rng_normal(rng);
}

/* One layer of d = 6 on two sequences of 7 tokens: the check covers the input and every
 * matrix, with the strengths' bias moved off 0 so that its gradient is not special. */
static double layer_check(const KitMixer64 *mixer, uint64_t seed)
{
    enum { D = 6, T = 7, B = 2, MOST = 10 };
    Rng rng;
    rng_seed(&rng, seed, 1);
    LayerCase c = { mixer, mixer->make(D), NULL, matrix_new64(T * B, D),
                    matrix_new64(T * B, D), matrix_new64(T * B, D), T };
    void *grad = mixer->make(D);
    c.trace = mixer->trace_make(c.layer, T, B);
    KitParam64 p[MOST], g[MOST];
    const int count = mixer->params(c.layer, p + 1) + 1;
    ck_assert_int_eq(mixer->params(grad, g + 1) + 1, count);
    kit_init64(p + 1, count - 1, &rng);
    if (count == 10)
        p[9].data[0] = 0.3;
    fill_normal(&rng, c.x, 1.0);
    fill_normal(&rng, c.gain, 1.0);
    Matrix64 d_x = matrix_new64(T * B, D);
    p[0] = kit_param64("X", c.x, KIT_TABLE, 1.0);
    g[0] = kit_param64("X", d_x, KIT_TABLE, 1.0);
    layer_loss(&c);
    mixer->backward(c.layer, c.x, T, c.trace, c.gain, grad, d_x);
    const KitCheck check = kit_gradient_check(p, g, count, layer_loss, &c, 1e-5);
    ck_assert_int_eq(check.checked, T * B * D + (count == 10 ? 3 * 36 + 3 * 24 + 36 + 7
                                                             : 3 * 36 + 3 * 24 + 36));
    mixer->trace_destroy(c.trace);
    mixer->destroy(c.layer);
    mixer->destroy(grad);
    Matrix64 *all[] = { &c.x, &c.y, &c.gain, &d_x };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
    return check.worst;
}

START_TEST(each_layer_passes_the_gradient_check)
{
    ck_assert_double_le(layer_check(&linear_mixer64, 41), 1e-6);
    ck_assert_double_le(layer_check(&delta_mixer64, 42), 1e-6);
}
END_TEST

/* A stack of two layers, loss sum G * (the last state of the stream). */
typedef struct {
    KitStack64 stack;
    KitStackWork64 work;
    Matrix64 gain;
} MixedCase;

static double mixed_loss(void *mc)
{
    MixedCase *c = mc;
    kit_stack_forward64(&c->stack, &c->work);
    const Matrix64 last = c->work.x[c->stack.layers];
    double loss = 0.0;
    for (int e = 0; e < last.rows * last.cols; e++)
        loss += c->gain.data[e] * last.data[e];
    return loss;
}

static double stack_check(const KitMixer64 *mixer, uint64_t seed)
{
    enum { D = 5, T = 6, B = 2, MOST = 1 + 2 * 9 };
    Rng rng;
    rng_seed(&rng, seed, 1);
    MixedCase c = { kit_stack_new_mixed64(2, D, mixer), { 0 }, matrix_new64(T * B, D) };
    KitStack64 grad = kit_stack_new_mixed64(2, D, mixer);
    c.work = kit_stack_work_new64(&c.stack, T, B);
    KitParam64 p[MOST], g[MOST];
    const int count = kit_stack_params64(&c.stack, p + 1) + 1;
    ck_assert_int_eq(kit_stack_params64(&grad, g + 1) + 1, count);
    ck_assert_int_eq(count, 1 + 2 * mixer->params(c.stack.mixed[0], NULL));
    kit_init64(p + 1, count - 1, &rng);
    fill_normal(&rng, c.work.x[0], 1.0);
    fill_normal(&rng, c.gain, 1.0);
    Matrix64 d_x = matrix_new64(T * B, D);
    p[0] = kit_param64("X", c.work.x[0], KIT_TABLE, 1.0);
    g[0] = kit_param64("X", d_x, KIT_TABLE, 1.0);
    mixed_loss(&c);
    memcpy(d_x.data, c.gain.data, sizeof(double) * T * B * D);
    kit_stack_backward64(&c.stack, &c.work, d_x, &grad);
    const KitCheck check = kit_gradient_check(p, g, count, mixed_loss, &c, 1e-5);
    kit_stack_work_free64(&c.work);
    kit_stack_free64(&c.stack);
    kit_stack_free64(&grad);
    matrix_free64(&c.gain);
    matrix_free64(&d_x);
    return check.worst;
}

START_TEST(a_stack_of_two_layers_passes_the_gradient_check)
{
    ck_assert_double_le(stack_check(&linear_mixer64, 43), 1e-6);
    ck_assert_double_le(stack_check(&delta_mixer64, 44), 1e-6);
}
END_TEST

/* Changing token 3 of the second sequence changes no output of the first sequence and none
 * of the second before token 3, and does change token 3's; changing the last token of the
 * first sequence changes nothing in the second. */
static void check_causal(const KitMixer64 *mixer)
{
    enum { D = 8, T = 9, B = 2 };
    Rng rng;
    rng_seed(&rng, 45, 1);
    void *layer = mixer->make(D), *trace = mixer->trace_make(layer, T, B);
    KitParam64 p[9];
    kit_init64(p, mixer->params(layer, p), &rng);
    Matrix64 x = matrix_new64(T * B, D), y = matrix_new64(T * B, D),
             y2 = matrix_new64(T * B, D);
    fill_normal(&rng, x, 1.0);
    mixer->forward(layer, x, T, trace, y);
    AT(x, T + 3, 2) += 0.5;
    mixer->forward(layer, x, T, trace, y2);
    for (int r = 0; r < T * B; r++)
        for (int c = 0; c < D; c++)
            if (r < T + 3)
                ck_assert(AT(y, r, c) == AT(y2, r, c));
    double changed = 0.0;
    for (int c = 0; c < D; c++)
        changed = fmax(changed, fabs(AT(y, T + 3, c) - AT(y2, T + 3, c)));
    ck_assert_double_gt(changed, 1e-6);
    AT(x, T - 1, 5) -= 0.5;
    mixer->forward(layer, x, T, trace, y);
    for (int r = T; r < T * B; r++)
        for (int c = 0; c < D; c++)
            ck_assert(AT(y, r, c) == AT(y2, r, c));
    changed = 0.0;
    for (int c = 0; c < D; c++)
        changed = fmax(changed, fabs(AT(y, T - 1, c) - AT(y2, T - 1, c)));
    ck_assert_double_gt(changed, 1e-6);
    mixer->trace_destroy(trace);
    mixer->destroy(layer);
    matrix_free64(&x);
    matrix_free64(&y);
    matrix_free64(&y2);
}

START_TEST(a_layer_is_causal_and_keeps_its_sequences_apart)
{
    check_causal(&linear_mixer64);
    check_causal(&delta_mixer64);
}
END_TEST

/* One forward and backward pass in both widths on the same parameters and input. */
static void check_widths(const KitMixer64 *wide, const KitMixer32 *slim)
{
    enum { D = 16, T = 24, B = 2, ROWS = T * B };
    Rng rng;
    rng_seed(&rng, 46, 1);
    void *l64 = wide->make(D), *g64 = wide->make(D), *l32 = slim->make(D),
         *g32 = slim->make(D);
    void *t64 = wide->trace_make(l64, T, B), *t32 = slim->trace_make(l32, T, B);
    KitParam64 p64[9], d64[9];
    KitParam32 p32[9], d32[9];
    const int count = wide->params(l64, p64);
    wide->params(g64, d64);
    slim->params(l32, p32);
    slim->params(g32, d32);
    kit_init64(p64, count, &rng);
    kit_narrow(p64, p32, count);
    kit_widen(p32, p64, count);
    Matrix64 x = matrix_new64(ROWS, D), y = matrix_new64(ROWS, D), gain = matrix_new64(ROWS, D),
             d_x = matrix_new64(ROWS, D), y_wide = matrix_new64(ROWS, D),
             dx_wide = matrix_new64(ROWS, D);
    Matrix32 x32 = matrix_new32(ROWS, D), y32 = matrix_new32(ROWS, D),
             gain32 = matrix_new32(ROWS, D), dx32 = matrix_new32(ROWS, D);
    for (int e = 0; e < ROWS * D; e++) {
        x32.data[e] = (float)rng_normal(&rng);
        gain32.data[e] = (float)rng_normal(&rng);
    }
    matrix_widen(x32, x);
    matrix_widen(gain32, gain);
    wide->forward(l64, x, T, t64, y);
    slim->forward(l32, x32, T, t32, y32);
    wide->backward(l64, x, T, t64, gain, g64, d_x);
    slim->backward(l32, x32, T, t32, gain32, g32, dx32);
    matrix_widen(y32, y_wide);
    matrix_widen(dx32, dx_wide);
    const double out = relative_difference(y_wide.data, y.data, ROWS * D);
    const double in = relative_difference(dx_wide.data, d_x.data, ROWS * D);
    ck_assert_double_le(out, 1e-5);
    ck_assert_double_gt(out, 0.0);
    ck_assert_double_le(in, 1e-4);
    ck_assert_double_gt(in, 0.0);
    for (int q = 0; q < count; q++) {
        const double gap = kit_widths_difference(&d32[q], &d64[q], 1);
        ck_assert_double_le(gap, 1e-4);
        ck_assert_double_gt(gap, 0.0);
    }
    wide->trace_destroy(t64);
    slim->trace_destroy(t32);
    wide->destroy(l64);
    wide->destroy(g64);
    slim->destroy(l32);
    slim->destroy(g32);
    Matrix64 *all64[] = { &x, &y, &gain, &d_x, &y_wide, &dx_wide };
    for (int a = 0; a < 6; a++)
        matrix_free64(all64[a]);
    Matrix32 *all32[] = { &x32, &y32, &gain32, &dx32 };
    for (int a = 0; a < 4; a++)
        matrix_free32(all32[a]);
}

START_TEST(the_float_layers_agree_with_the_double_layers)
{
    check_widths(&linear_mixer64, &linear_mixer32);
    check_widths(&delta_mixer64, &delta_mixer32);
}
END_TEST

/* The layer's own sweeps give the outputs of the chapter's recurrent forms on the rule's
 * inputs the trace keeps: linear_recurrent with the normaliser, delta_recurrent from zero. */
static void check_sweeps(const KitMixer64 *mixer, bool delta)
{
    enum { D = 12, T = 30, B = 3 };
    Rng rng;
    rng_seed(&rng, 47, 1);
    void *layer = mixer->make(D), *trace = mixer->trace_make(layer, T, B);
    KitParam64 p[9];
    kit_init64(p, mixer->params(layer, p), &rng);
    Matrix64 x = matrix_new64(T * B, D), y = matrix_new64(T * B, D),
             o = matrix_new64(T, D), state = matrix_new64(D, D);
    fill_normal(&rng, x, 1.0);
    mixer->forward(layer, x, T, trace, y);
    const RuleTrace64 *t = trace;
    for (int b = 0; b < B; b++) {
        const size_t at = (size_t)b * T * D;
        const Matrix64 q = { T, D, t->q.data + at }, k = { T, D, t->k.data + at },
                       v = { T, D, t->v.data + at }, mine = { T, D, t->o.data + at };
        matrix_zero64(state);
        if (delta)
            delta_recurrent64(q, k, v, &t->beta.data[b * T], state, o);
        else
            linear_recurrent64(q, k, v, true, o);
        double largest = 0.0;
        for (int e = 0; e < T * D; e++)
            largest = fmax(largest, fabs(o.data[e]));
        ck_assert_double_gt(largest, 0.0);
        ck_assert_double_le(matrix64_largest_difference(o, mine), 1e-12 * largest);
    }
    mixer->trace_destroy(trace);
    mixer->destroy(layer);
    Matrix64 *all[] = { &x, &y, &o, &state };
    for (int a = 0; a < 4; a++)
        matrix_free64(all[a]);
}

START_TEST(the_layers_sweeps_are_the_chapters_recurrent_forms)
{
    check_sweeps(&linear_mixer64, false);
    check_sweeps(&delta_mixer64, true);
}
END_TEST

/* A layer refuses an input whose length is not its trace's. */
START_TEST(a_layer_refuses_a_trace_of_another_length)
{
    void *layer = delta_mixer64.make(4), *trace = delta_mixer64.trace_make(layer, 5, 2);
    Matrix64 x = matrix_new64(12, 4), y = matrix_new64(12, 4);
    delta_mixer64.forward(layer, x, 6, trace, y);
}
END_TEST

static TCase *layers_tcase(void)
{
    TCase *layers = tcase_create("layers");
    tcase_set_timeout(layers, 60);
    tcase_add_test(layers, the_layers_sweeps_are_the_chapters_recurrent_forms);
    tcase_add_test(layers, each_layer_passes_the_gradient_check);
    tcase_add_test(layers, a_stack_of_two_layers_passes_the_gradient_check);
    tcase_add_test(layers, a_layer_is_causal_and_keeps_its_sequences_apart);
    tcase_add_test(layers, the_float_layers_agree_with_the_double_layers);
    return layers;
}

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
    tcase_add_test(capacity, the_writes_are_the_obvious_loops);
    tcase_add_test(capacity, the_delta_rule_reads_its_last_pair_exactly);
    tcase_add_test(capacity, linear_crosstalk_has_variance_k_minus_one_over_d);
    tcase_add_test(capacity, the_right_answers_are_counted_by_angle);
    tcase_add_test(capacity, one_pair_is_always_read_back);
    suite_add_tcase(suite, capacity);
    TCase *forms = tcase_create("forms");
    tcase_add_test(forms, the_feature_map_is_elu_plus_one);
    tcase_add_test(forms, the_recurrent_and_parallel_forms_agree);
    tcase_add_test(forms, the_chunked_delta_rule_is_the_recurrent_one);
    suite_add_tcase(suite, forms);
    TCase *model = tcase_create("model");
    tcase_add_test(model, the_model_reads_out_the_queries_alone);
    tcase_add_loop_test(model, the_model_gradient_matches_central_differences, 0,
                        MQAR_MIXERS);
    tcase_add_loop_test(model, the_shards_add_up_to_one_pass_over_the_batch, 0, MQAR_MIXERS);
    suite_add_tcase(suite, model);
    suite_add_tcase(suite, layers_tcase());
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, draw_refuses_a_vocabulary_not_above_the_length,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, draw_refuses_more_pairs_than_a_quarter_of_the_length,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, draw_apart_refuses_a_set_that_holds_every_sequence,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, a_layer_refuses_a_trace_of_another_length, SIGABRT);
    suite_add_tcase(suite, refused);
    linear_fast_tcases(suite);
    return suite;
}

/* The fast chunked kernel (section "What each costs"): against the chapter's recurrent and
 * chunked forms in double, and the chunked form in float, from a random state, on unit keys and
 * queries and strengths in (0, 1), at lengths that are no multiple of a chunk, for every chunk
 * this build allows; relative to the largest output and to the largest entry of the state,
 * within the chunked form's estimate tau (section "How far apart the two forms may be") of the
 * forms in double, and within 2 tau of the chunked form in float, which rounds on its own. */
static double relative(const double *a, const float *b, int count)
{
    double largest = 0.0, gap = 0.0;
    for (int e = 0; e < count; e++) {
        largest = fabs(a[e]) > largest ? fabs(a[e]) : largest;
        gap = fabs(a[e] - b[e]) > gap ? fabs(a[e] - b[e]) : gap;
    }
    return gap / largest;
}

static double fast_gap(const Matrix64 *a, const Matrix64 *s, const Matrix32 *b,
                       const Matrix32 *t)
{
    const double outputs = relative(a->data, b->data, a->rows * a->cols);
    const double state = relative(s->data, t->data, s->rows * s->cols);
    return outputs > state ? outputs : state;
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
    const double bound = delta_chunked_tolerance32(d, chunk);
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
