/* Tests of the attention module (chapter 2): the toy sentence and head, the scores with and
 * without the scale, rows that sum to 1, the whole head against a double-precision reference
 * written the obvious way (on shapes that are not powers of 2), the head as its five steps,
 * uniform attention from zero queries, the mask hook, the shuffle property, the hand-built
 * previous-token head against its closed form, and the bound on scores made with one map. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "attention.h"
#include "softmax.h"
#include "refusal.h"

/* S = Q K^T (divided by sqrt(d_k) when scaled), in double, one dot product at a time. */
static void reference_scores(Matrix q, Matrix k, bool scale, double *s)
{
    for (int i = 0; i < q.rows; i++)
        for (int j = 0; j < k.rows; j++) {
            double dot = 0.0;
            for (int c = 0; c < q.cols; c++)
                dot += (double)AT(q, i, c) * AT(k, j, c);
            s[i * k.rows + j] = scale ? dot / sqrt((double)q.cols) : dot;
        }
}

/* The whole head in double: projections, scores, optional causal mask, softmax, mix. */
static void reference_head(Matrix x, HeadWeights w, bool scale, bool causal, double *a,
                           double *o)
{
    const int T = x.rows, d = x.cols, dk = w.query.cols, dv = w.value.cols;
    double q[T][dk], k[T][dk], v[T][dv];
    for (int t = 0; t < T; t++) {
        for (int c = 0; c < dk; c++) {
            q[t][c] = k[t][c] = 0.0;
            for (int p = 0; p < d; p++) {
                q[t][c] += (double)AT(x, t, p) * AT(w.query, p, c);
                k[t][c] += (double)AT(x, t, p) * AT(w.key, p, c);
            }
        }
        for (int c = 0; c < dv; c++) {
            v[t][c] = 0.0;
            for (int p = 0; p < d; p++)
                v[t][c] += (double)AT(x, t, p) * AT(w.value, p, c);
        }
    }
    for (int i = 0; i < T; i++) {
        const int last = causal ? i : T - 1;
        double total = 0.0;
        for (int j = 0; j < T; j++) {
            double dot = 0.0;
            for (int c = 0; c < dk; c++)
                dot += q[i][c] * k[j][c];
            if (scale)
                dot /= sqrt((double)dk);
            a[i * T + j] = j <= last ? exp(dot) : 0.0;
            total += a[i * T + j];
        }
        for (int j = 0; j < T; j++)
            a[i * T + j] /= total;
        for (int c = 0; c < dv; c++) {
            o[i * dv + c] = 0.0;
            for (int j = 0; j < T; j++)
                o[i * dv + c] += a[i * T + j] * v[j][c];
        }
    }
}

START_TEST(the_toy_sentence_has_eight_tokens_and_repeatable_embeddings)
{
    const char *expected[TOY_LENGTH] = { "the", "cat", "sat", "on", "the", "mat", ".", "and" };
    ck_assert_int_eq(TOY_LENGTH, 8);
    for (int t = 0; t < TOY_LENGTH; t++)
        ck_assert_str_eq(toy_tokens[t], expected[t]);
    Matrix a = toy_embeddings(13, 7), b = toy_embeddings(13, 7), c = toy_embeddings(13, 8);
    ck_assert_int_eq(a.rows, TOY_LENGTH);
    ck_assert_int_eq(a.cols, 13);
    ck_assert(memcmp(a.data, b.data, sizeof(float) * 8 * 13) == 0);
    ck_assert(memcmp(a.data, c.data, sizeof(float) * 8 * 13) != 0);
    matrix_free(&a);
    matrix_free(&b);
    matrix_free(&c);
}
END_TEST

START_TEST(an_embedding_is_its_tokens_vector_plus_its_positions)
{
    enum { D = 64 };
    Matrix x = toy_embeddings(D, 3), tokens = toy_token_vectors(D, 3),
           positions = toy_position_vectors(D, 3);
    ck_assert_int_eq(tokens.rows, TOY_VOCABULARY);
    ck_assert_int_eq(positions.rows, TOY_LENGTH);
    for (int t = 0; t < TOY_LENGTH; t++) {
        for (int u = 0; u < TOY_LENGTH; u++)        /* one id per distinct token */
            ck_assert_int_eq(toy_token_ids[t] == toy_token_ids[u],
                             strcmp(toy_tokens[t], toy_tokens[u]) == 0);
        for (int c = 0; c < D; c++)
            ck_assert_float_eq(AT(x, t, c),
                               AT(tokens, toy_token_ids[t], c) + AT(positions, t, c));
    }
    /* The two "the"s differ only by their positions' vectors. */
    for (int c = 0; c < D; c++)
        ck_assert_float_eq_tol(AT(x, 4, c) - AT(x, 0, c),
                               AT(positions, 4, c) - AT(positions, 0, c), 1e-5f);
    /* Each part has entries of variance 1/2, so that X has entries of variance 1. */
    double parts = 0.0, whole = 0.0;
    for (int e = 0; e < TOY_LENGTH * D; e++)
        parts += (double)positions.data[e] * positions.data[e] / (TOY_LENGTH * D),
        whole += (double)x.data[e] * x.data[e] / (TOY_LENGTH * D);
    ck_assert_double_eq_tol(parts, 0.5, 0.15);
    ck_assert_double_eq_tol(whole, 1.0, 0.3);
    Matrix *all[] = { &x, &tokens, &positions };
    for (int m = 0; m < 3; m++)
        matrix_free(all[m]);
}
END_TEST

START_TEST(head_weights_have_their_shapes_and_spread)
{
    Rng rng;
    rng_seed(&rng, 3, 1);
    HeadWeights w = head_weights_new(100, 37, &rng);
    const Matrix *all[] = { &w.query, &w.key, &w.value };
    for (int m = 0; m < 3; m++) {
        ck_assert_int_eq(all[m]->rows, 100);
        ck_assert_int_eq(all[m]->cols, 37);
        double sum_squares = 0.0;
        for (int e = 0; e < 100 * 37; e++)
            sum_squares += (double)all[m]->data[e] * all[m]->data[e];
        /* 3700 samples: the standard deviation is 0.1 to within about 1 %; allow 5 %. */
        ck_assert_double_eq_tol(sqrt(sum_squares / 3700.0), 0.1, 0.005);
    }
    ck_assert(memcmp(w.query.data, w.key.data, sizeof(float) * 3700) != 0);
    head_weights_free(&w);
    ck_assert_ptr_null(w.query.data);
}
END_TEST

START_TEST(unscaled_scores_are_the_dot_products_of_queries_and_keys)
{
    Rng rng;
    rng_seed(&rng, 11, 1);
    Matrix q = matrix_new_normal(7, 5, &rng, 1.0f), k = matrix_new_normal(11, 5, &rng, 1.0f),
           s = matrix_new(7, 11);
    double reference[7 * 11];
    attention_scores(q, k, false, s);
    reference_scores(q, k, false, reference);
    for (int e = 0; e < 7 * 11; e++)
        ck_assert_double_le(fabs(s.data[e] - reference[e]), 1e-5 * (1.0 + fabs(reference[e])));
    matrix_free(&q);
    matrix_free(&k);
    matrix_free(&s);
}
END_TEST

/* The test of exercise ex:one-head-scale: it calls attention_scores with scale on. */
START_TEST(scaled_scores_are_dot_products_over_root_dk)
{
    Rng rng;
    rng_seed(&rng, 12, 1);
    const int widths[] = { 1, 5, 24 };
    for (int t = 0; t < 3; t++) {
        const int dk = widths[t];
        Matrix q = matrix_new_normal(6, dk, &rng, 2.0f), k = matrix_new_normal(9, dk, &rng, 2.0f),
               s = matrix_new(6, 9);
        double reference[6 * 9];
        attention_scores(q, k, true, s);
        reference_scores(q, k, true, reference);
        for (int e = 0; e < 6 * 9; e++)
            ck_assert_double_le(fabs(s.data[e] - reference[e]),
                                1e-5 * (1.0 + fabs(reference[e])));
        matrix_free(&q);
        matrix_free(&k);
        matrix_free(&s);
    }
}
END_TEST

/* The reason for the scale: with unit-variance inputs and weights of standard deviation
 * 1/sqrt(d_model), scaled scores have a spread near 1 whatever d_k, unscaled ones sqrt(d_k). */
START_TEST(scaled_scores_spread_about_one_for_every_width)
{
    const int widths[] = { 4, 64 }, T = 48, d = 40, draws = 12;
    Rng rng;
    rng_seed(&rng, 18, 1);
    for (int t = 0; t < 2; t++) {
        const int dk = widths[t];
        double squares[2] = { 0.0, 0.0 };
        for (int draw = 0; draw < draws; draw++) {
            Matrix x = matrix_new_normal(T, d, &rng, 1.0f), q = matrix_new(T, dk),
                   k = matrix_new(T, dk), s = matrix_new(T, T);
            HeadWeights w = head_weights_new(d, dk, &rng);
            matrix_multiply(x, w.query, q);
            matrix_multiply(x, w.key, k);
            for (int scale = 0; scale < 2; scale++) {
                attention_scores(q, k, scale, s);
                for (int e = 0; e < T * T; e++)
                    squares[scale] += (double)s.data[e] * s.data[e] / (T * T * draws);
            }
            matrix_free(&x);
            matrix_free(&q);
            matrix_free(&k);
            matrix_free(&s);
            head_weights_free(&w);
        }
        ck_assert_double_eq_tol(sqrt(squares[1]), 1.0, 0.15);
        ck_assert_double_eq_tol(sqrt(squares[0]) / sqrt((double)dk), 1.0, 0.15);
    }
}
END_TEST

/* Rows sum to 1, and each output coordinate, a weighted average of the values, lies between
 * the smallest and the largest value of that coordinate. */
START_TEST(every_row_of_the_pattern_is_positive_and_sums_to_one)
{
    Rng rng;
    rng_seed(&rng, 13, 1);
    Matrix x = matrix_new_normal(13, 10, &rng, 1.0f), weights = matrix_new(13, 13),
           output = matrix_new(13, 6), v = matrix_new(13, 6);
    HeadWeights w = head_weights_new(10, 6, &rng);
    matrix_multiply(x, w.value, v);
    for (int scale = 0; scale < 2; scale++) {
        attention_head(x, w, scale, NULL, NULL, weights, output);
        for (int i = 0; i < 13; i++) {
            double sum = 0.0;
            for (int j = 0; j < 13; j++) {
                ck_assert(AT(weights, i, j) > 0.0f);
                sum += AT(weights, i, j);
            }
            ck_assert_double_eq_tol(sum, 1.0, 1e-6);
            for (int c = 0; c < 6; c++) {
                float low = INFINITY, high = -INFINITY;
                for (int j = 0; j < 13; j++) {
                    low = fminf(low, AT(v, j, c));
                    high = fmaxf(high, AT(v, j, c));
                }
                ck_assert(AT(output, i, c) >= low - 1e-6f && AT(output, i, c) <= high + 1e-6f);
            }
        }
    }
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
    matrix_free(&v);
    head_weights_free(&w);
}
END_TEST

/* A mask written here, not chapter 3's: these tests must not depend on its exercise. */
static void lower_triangle_only(Matrix scores, const void *context)
{
    (void)context;
    for (int i = 0; i < scores.rows; i++)
        for (int j = i + 1; j < scores.cols; j++)
            AT(scores, i, j) = -INFINITY;
}

START_TEST(the_head_matches_a_double_precision_reference)
{
    const int shapes[][4] = { { 7, 13, 5, 5 }, { 11, 6, 3, 9 }, { 1, 3, 2, 2 } };
    Rng rng;
    rng_seed(&rng, 14, 1);
    for (int s = 0; s < 3; s++) {
        const int T = shapes[s][0], d = shapes[s][1], dk = shapes[s][2], dv = shapes[s][3];
        Matrix x = matrix_new_normal(T, d, &rng, 1.0f), weights = matrix_new(T, T),
               output = matrix_new(T, dv);
        HeadWeights w = { matrix_new_normal(d, dk, &rng, 0.7f), matrix_new_normal(d, dk, &rng, 0.7f),
                          matrix_new_normal(d, dv, &rng, 0.7f) };
        for (int variant = 0; variant < 4; variant++) {
            const bool scale = variant & 1, causal = variant & 2;
            double a[T * T], o[T * dv];
            attention_head(x, w, scale, causal ? lower_triangle_only : NULL, NULL, weights,
                           output);
            reference_head(x, w, scale, causal, a, o);
            for (int e = 0; e < T * T; e++)
                ck_assert_double_le(fabs(weights.data[e] - a[e]), 1e-5 * a[e] + 1e-6);
            for (int e = 0; e < T * dv; e++)
                ck_assert_double_le(fabs(output.data[e] - o[e]), 1e-5 * (1.0 + fabs(o[e])));
        }
        matrix_free(&x);
        matrix_free(&weights);
        matrix_free(&output);
        head_weights_free(&w);
    }
}
END_TEST

/* The steps of the program one-head, at its default width, for seeds 0 and 1 (its default). */
START_TEST(the_head_is_its_five_steps)
{
    const int T = TOY_LENGTH, d = 32;
    Matrix x = toy_embeddings(d, (uint64_t)_i);
    HeadWeights w = toy_head_weights(d, d, (uint64_t)_i);
    Matrix q = matrix_new(T, d), k = matrix_new(T, d), v = matrix_new(T, d),
           a = matrix_new(T, T), o = matrix_new(T, d), weights = matrix_new(T, T),
           output = matrix_new(T, d);
    matrix_multiply(x, w.query, q);
    matrix_multiply(x, w.key, k);
    matrix_multiply(x, w.value, v);
    attention_scores(q, k, true, a);
    softmax_rows(a);
    matrix_multiply(a, v, o);
    attention_head(x, w, true, NULL, NULL, weights, output);
    ck_assert(memcmp(a.data, weights.data, sizeof(float) * T * T) == 0);
    ck_assert(memcmp(o.data, output.data, sizeof(float) * T * d) == 0);
    Matrix *all[] = { &x, &q, &k, &v, &a, &o, &weights, &output };
    for (int m = 0; m < 8; m++)
        matrix_free(all[m]);
    head_weights_free(&w);
}
END_TEST

START_TEST(zero_queries_attend_uniformly_and_average_the_values)
{
    const int T = 7, d = 9, dk = 4;
    Rng rng;
    rng_seed(&rng, 15, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), weights = matrix_new(T, T),
           output = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    matrix_fill(w.query, 0.0f);
    attention_head(x, w, true, NULL, NULL, weights, output);
    for (int e = 0; e < T * T; e++)
        ck_assert_float_eq_tol(weights.data[e], 1.0f / T, 1e-7f);
    for (int c = 0; c < dk; c++) {
        double mean = 0.0;
        for (int t = 0; t < T; t++)
            for (int p = 0; p < d; p++)
                mean += (double)AT(x, t, p) * AT(w.value, p, c) / T;
        for (int t = 0; t < T; t++)
            ck_assert_double_le(fabs(AT(output, t, c) - mean), 1e-5);
    }
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
    head_weights_free(&w);
}
END_TEST

static void forbid_entry_two_three(Matrix scores, const void *context)
{
    (void)context;
    AT(scores, 2, 3) = -INFINITY;
}

START_TEST(the_mask_acts_on_the_scores_before_the_softmax)
{
    const int T = 5, d = 6;
    Rng rng;
    rng_seed(&rng, 16, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), plain = matrix_new(T, T),
           masked = matrix_new(T, T), output = matrix_new(T, d);
    HeadWeights w = head_weights_new(d, d, &rng);
    attention_head(x, w, true, NULL, NULL, plain, output);
    attention_head(x, w, true, forbid_entry_two_three, NULL, masked, output);
    ck_assert(AT(masked, 2, 3) == 0.0f);
    /* Row 2's other weights are renormalised: plain / (1 - plain[2][3]). */
    double sum = 0.0;
    for (int j = 0; j < T; j++) {
        sum += AT(masked, 2, j);
        if (j != 3)
            ck_assert_double_le(fabs(AT(masked, 2, j) -
                                     AT(plain, 2, j) / (1.0 - AT(plain, 2, 3))), 1e-6);
    }
    ck_assert_double_eq_tol(sum, 1.0, 1e-6);
    for (int i = 0; i < T; i++)
        if (i != 2)
            ck_assert(memcmp(&AT(masked, i, 0), &AT(plain, i, 0), sizeof(float) * T) == 0);
    matrix_free(&x);
    matrix_free(&plain);
    matrix_free(&masked);
    matrix_free(&output);
    head_weights_free(&w);
}
END_TEST

START_TEST(shuffling_the_input_shuffles_the_pattern_and_the_output)
{
    const int T = 9, d = 7, dk = 5;
    const int order[9] = { 4, 0, 8, 2, 7, 1, 3, 6, 5 };
    Rng rng;
    rng_seed(&rng, 17, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), shuffled = matrix_new(T, d);
    Matrix a = matrix_new(T, T), b = matrix_new(T, T), o = matrix_new(T, dk),
           p = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < d; c++)
            AT(shuffled, t, c) = AT(x, order[t], c);
    attention_head(x, w, true, NULL, NULL, a, o);
    attention_head(shuffled, w, true, NULL, NULL, b, p);
    for (int i = 0; i < T; i++) {
        for (int j = 0; j < T; j++)
            ck_assert_float_eq_tol(AT(b, i, j), AT(a, order[i], order[j]), 1e-6f);
        for (int c = 0; c < dk; c++)
            ck_assert_float_eq_tol(AT(p, i, c), AT(o, order[i], c), 1e-5f);
    }
    Matrix *all[] = { &x, &shuffled, &a, &b, &o, &p };
    for (int m = 0; m < 6; m++)
        matrix_free(all[m]);
    head_weights_free(&w);
}
END_TEST

/* The hand-built head of chapter 2 against its closed form, for three gaps g: row t of the
 * input holds a 1 at t and a 1 at T + token(t); the scaled score is g at j = i - 1 and 0
 * elsewhere; row 0 is uniform and row i >= 1 gives e^g / (e^g + T - 1) to key i - 1 and
 * 1 / (e^g + T - 1) to each other key, so that its largest weight is at i - 1. */
START_TEST(the_previous_token_head_looks_one_place_back)
{
    enum { T = TOY_LENGTH, V = TOY_VOCABULARY };
    const double gaps[] = { 1.0, 3.0, PREVIOUS_TOKEN_GAP };
    Matrix x = toy_codes();
    ck_assert_int_eq(x.rows, T);
    ck_assert_int_eq(x.cols, T + V);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < T + V; c++)
            ck_assert_float_eq(AT(x, t, c), c == t || c == T + toy_token_ids[t]);
    for (int n = 0; n < 3; n++) {
        const double g = gaps[n], rest = exp(g) + T - 1;
        HeadWeights w = previous_token_head(g);
        Matrix q = matrix_new(T, T), k = matrix_new(T, T), s = matrix_new(T, T),
               a = matrix_new(T, T), o = matrix_new(T, V);
        matrix_multiply(x, w.query, q);
        matrix_multiply(x, w.key, k);
        attention_scores(q, k, true, s);
        attention_head(x, w, true, NULL, NULL, a, o);
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                const bool previous = i >= 1 && j == i - 1;
                const double weight = i == 0 ? 1.0 / T : (previous ? exp(g) : 1.0) / rest;
                ck_assert_double_le(fabs(AT(s, i, j) - (previous ? g : 0.0)), 1e-5 * g);
                ck_assert_double_le(fabs(AT(a, i, j) - weight), 1e-6);
                if (i >= 1 && !previous)
                    ck_assert(AT(a, i, j) < AT(a, i, i - 1));
            }
        Matrix *all[] = { &q, &k, &s, &a, &o };
        for (int m = 0; m < 5; m++)
            matrix_free(all[m]);
        head_weights_free(&w);
    }
    matrix_free(&x);
}
END_TEST

/* At the book's gap the head gives at least 0.9 of rows 1 to T - 1, on average, to the key
 * before, and each of those rows' outputs (the token codes, mixed) is largest at the
 * previous token: the sum of the weights on each token's positions, computed here. */
START_TEST(the_previous_token_head_reads_the_previous_token)
{
    enum { T = TOY_LENGTH, V = TOY_VOCABULARY };
    Matrix x = toy_codes(), a = matrix_new(T, T), o = matrix_new(T, V);
    HeadWeights w = previous_token_head(PREVIOUS_TOKEN_GAP);
    attention_head(x, w, true, NULL, NULL, a, o);
    double on_previous = 0.0;
    for (int i = 1; i < T; i++) {
        on_previous += AT(a, i, i - 1) / (T - 1);
        double per_token[V] = { 0.0 };
        for (int j = 0; j < T; j++)
            per_token[toy_token_ids[j]] += AT(a, i, j);
        for (int v = 0; v < V; v++) {
            ck_assert_double_le(fabs(AT(o, i, v) - per_token[v]), 1e-6);
            if (v != toy_token_ids[i - 1])
                ck_assert(AT(o, i, v) < AT(o, i, toy_token_ids[i - 1]));
        }
    }
    ck_assert_double_ge(on_previous, 0.9);
    matrix_free(&x);
    matrix_free(&a);
    matrix_free(&o);
    head_weights_free(&w);
}
END_TEST

/* One map for queries and keys gives S = Q Q^T.  By Cauchy-Schwarz |S_ij| <= sqrt(S_ii S_jj)
 * <= max(S_ii, S_jj): no score off the diagonal beats both of its diagonal entries, and the
 * row with the largest diagonal entry peaks there.  Width 1 makes every pair parallel, where
 * the bound is met with equality, up to rounding. */
START_TEST(one_map_scores_never_beat_both_diagonal_entries)
{
    const int widths[] = { 1, 3, 16 }, T = 9;
    Rng rng;
    rng_seed(&rng, 19, 1);
    for (int n = 0; n < 3; n++) {
        Matrix q = matrix_new_normal(T, widths[n], &rng, 1.0f), s = matrix_new(T, T);
        attention_scores(q, q, false, s);
        int longest = 0;
        for (int i = 0; i < T; i++) {
            if (AT(s, i, i) > AT(s, longest, longest))
                longest = i;
            for (int j = 0; j < T; j++) {
                const double bound = sqrt((double)AT(s, i, i) * AT(s, j, j));
                ck_assert_double_le(fabs(AT(s, i, j)), bound * (1.0 + 1e-5) + 1e-6);
                ck_assert_double_le(bound, fmax(AT(s, i, i), AT(s, j, j)) * (1.0 + 1e-6));
            }
        }
        for (int j = 0; j < T; j++)
            ck_assert(AT(s, longest, j) <= AT(s, longest, longest) * (1.0f + 1e-5f));
        matrix_free(&q);
        matrix_free(&s);
    }
}
END_TEST

START_TEST(a_written_pattern_has_the_tokens_on_both_sides)
{
    const char *tokens[3] = { "x", "y", "." };
    Matrix m = matrix_new(3, 3);
    for (int e = 0; e < 9; e++)
        m.data[e] = (float)e / 8.0f;
    char text[512] = "";
    FILE *out = fmemopen(text, sizeof text, "w");
    ck_assert_ptr_nonnull(out);
    attention_write_pattern(out, m, tokens);
    fclose(out);
    const char *expected = "query\\key \"0 x\" \"1 y\" \"2 .\"\n"
                           "\"0 x\" 0.000000 0.125000 0.250000\n"
                           "\"1 y\" 0.375000 0.500000 0.625000\n"
                           "\"2 .\" 0.750000 0.875000 1.000000\n";
    const char *body = strchr(text, '\n');
    ck_assert_ptr_nonnull(body);
    ck_assert(text[0] == '#');
    ck_assert_str_eq(body + 1, expected);
    matrix_free(&m);
}
END_TEST

START_TEST(a_printed_pattern_is_rounded_to_three_decimals)
{
    const char *tokens[2] = { "a", "bb" };
    Matrix m = matrix_new(2, 2);
    const float values[4] = { 0.12345f, 0.87655f, 1.0f, 0.0f };
    memcpy(m.data, values, sizeof values);
    char text[256] = "";
    FILE *out = fmemopen(text, sizeof text, "w");
    ck_assert_ptr_nonnull(out);
    attention_print_pattern(out, m, tokens);
    fclose(out);
    ck_assert_str_eq(text, "              a     bb\n"
                           "  a       0.123  0.877\n"
                           "  bb      1.000  0.000\n");
    matrix_free(&m);
}
END_TEST

START_TEST(scores_refuse_queries_and_keys_of_different_widths)
{
    Matrix q = matrix_new(4, 3), k = matrix_new(5, 2), scores = matrix_new(4, 5);
    attention_scores(q, k, true, scores);
    matrix_free(&q);
    matrix_free(&k);
    matrix_free(&scores);
}
END_TEST

START_TEST(the_previous_token_head_refuses_a_gap_that_is_not_a_number)
{
    HeadWeights w = previous_token_head(NAN);
    head_weights_free(&w);
}
END_TEST

Suite *attention_suite(void)
{
    Suite *suite = suite_create("attention");
    TCase *core = tcase_create("one head");
    tcase_add_test(core, the_toy_sentence_has_eight_tokens_and_repeatable_embeddings);
    tcase_add_test(core, an_embedding_is_its_tokens_vector_plus_its_positions);
    tcase_add_test(core, head_weights_have_their_shapes_and_spread);
    tcase_add_test(core, unscaled_scores_are_the_dot_products_of_queries_and_keys);
    tcase_add_test(core, scaled_scores_are_dot_products_over_root_dk);
    tcase_add_test(core, scaled_scores_spread_about_one_for_every_width);
    tcase_add_test(core, every_row_of_the_pattern_is_positive_and_sums_to_one);
    tcase_add_test(core, the_head_matches_a_double_precision_reference);
    tcase_add_loop_test(core, the_head_is_its_five_steps, 0, 2);
    tcase_add_test(core, zero_queries_attend_uniformly_and_average_the_values);
    tcase_add_test(core, the_mask_acts_on_the_scores_before_the_softmax);
    tcase_add_test(core, shuffling_the_input_shuffles_the_pattern_and_the_output);
    tcase_add_test(core, the_previous_token_head_looks_one_place_back);
    tcase_add_test(core, the_previous_token_head_reads_the_previous_token);
    tcase_add_test(core, one_map_scores_never_beat_both_diagonal_entries);
    tcase_add_test(core, a_written_pattern_has_the_tokens_on_both_sides);
    tcase_add_test(core, a_printed_pattern_is_rounded_to_three_decimals);
    suite_add_tcase(suite, core);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, scores_refuse_queries_and_keys_of_different_widths, SIGABRT);
    tcase_add_test_raise_signal(refused, the_previous_token_head_refuses_a_gap_that_is_not_a_number,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
