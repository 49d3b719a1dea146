/* Tests of the multihead module (chapter 5): the head width, the reshape's offsets, split and
 * merge, one head with W_O = I against the single head of chapter 2, every head against the
 * single head on its slice, and the causal mask in every head, which also receives the mask's
 * context; the sum form of W_O; the reader of the toy input and the three hand-built heads,
 * each against its closed form. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "attention.h"
#include "mask.h"
#include "multihead.h"
#include "refusal.h"

START_TEST(head_width_divides_or_is_zero)
{
    ck_assert_int_eq(multihead_head_width(32, 4), 8);
    ck_assert_int_eq(multihead_head_width(64, 8), 8);
    ck_assert_int_eq(multihead_head_width(7, 7), 1);
    ck_assert_int_eq(multihead_head_width(7, 1), 7);
    ck_assert_int_eq(multihead_head_width(32, 5), 0);
    ck_assert_int_eq(multihead_head_width(32, 64), 0);
    ck_assert_int_eq(multihead_head_width(6, 0), 0);
    ck_assert_int_eq(multihead_head_width(0, 2), 0);
}
END_TEST

/* Every (head, t, c) names a different entry of the T x d_model buffer, the one AT names. */
START_TEST(offset_is_the_reshape_of_the_row_major_buffer)
{
    enum { T = 5, D = 12, H = 3, DH = D / H };
    int seen[T * D] = { 0 };
    Matrix q = matrix_new(T, D);
    for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < DH; c++) {
                const size_t offset = multihead_offset(D, DH, h, t, c);
                ck_assert_uint_lt(offset, T * D);
                ck_assert_ptr_eq(&q.data[offset], &AT(q, t, h * DH + c));
                seen[offset]++;
            }
    for (int k = 0; k < T * D; k++)
        ck_assert_int_eq(seen[k], 1);
    matrix_free(&q);
}
END_TEST

/* An entry of `full` holds 1000 t + j, so a slice's entries say where they came from. */
START_TEST(split_takes_the_heads_columns)
{
    enum { T = 6, D = 20, H = 4, DH = D / H };
    Matrix full = matrix_new(T, D), slice = matrix_new(T, DH);
    for (int t = 0; t < T; t++)
        for (int j = 0; j < D; j++)
            AT(full, t, j) = (float)(1000 * t + j);
    for (int h = 0; h < H; h++) {
        matrix_fill(slice, -1.0f);
        multihead_split(full, h, DH, slice);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < DH; c++)
                ck_assert_float_eq(AT(slice, t, c), (float)(1000 * t + h * DH + c));
    }
    matrix_free(&full);
    matrix_free(&slice);
}
END_TEST

START_TEST(merge_writes_only_the_heads_columns)
{
    enum { T = 4, D = 12, H = 3, DH = D / H };
    Matrix full = matrix_new(T, D), slice = matrix_new(T, DH);
    matrix_fill(full, -1.0f);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < DH; c++)
            AT(slice, t, c) = (float)(10 * t + c);
    multihead_merge(slice, 1, DH, full);
    for (int t = 0; t < T; t++)
        for (int j = 0; j < D; j++) {
            const float expected = (j >= DH && j < 2 * DH) ? (float)(10 * t + j - DH) : -1.0f;
            ck_assert_float_eq(AT(full, t, j), expected);
        }
    matrix_free(&full);
    matrix_free(&slice);
}
END_TEST

static void check_one_head(bool scale, ScoreMask mask)
{
    enum { T = 8, D = 16 };
    Rng rng;
    rng_seed(&rng, 21, 0);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f);
    MultiHead m = multihead_new(D, 1, &rng);
    matrix_fill(m.w_out, 0.0f);
    for (int i = 0; i < D; i++)
        AT(m.w_out, i, i) = 1.0f;
    Matrix weights = matrix_new(T, T), output = matrix_new(T, D);
    Matrix single = matrix_new(T, T), single_output = matrix_new(T, D);
    multihead_forward(&m, x, scale, mask, NULL, weights, output);
    const HeadWeights w = { m.w_query, m.w_key, m.w_value };
    attention_head(x, w, scale, mask, NULL, single, single_output);
    for (int e = 0; e < T * T; e++)
        ck_assert(weights.data[e] == single.data[e]);
    for (int e = 0; e < T * D; e++)
        ck_assert(output.data[e] == single_output.data[e]);
    multihead_free(&m);
    Matrix *all[] = { &x, &weights, &output, &single, &single_output };
    for (int a = 0; a < 5; a++)
        matrix_free(all[a]);
}

START_TEST(one_head_is_attention_head)
{
    check_one_head(true, mask_causal);
    check_one_head(false, NULL);
}
END_TEST

START_TEST(each_head_is_attention_head_on_its_slice)
{
    enum { T = 7, D = 24, H = 3, DH = D / H };
    Rng rng;
    rng_seed(&rng, 22, 0);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f);
    MultiHead m = multihead_new(D, H, &rng);
    Matrix weights = matrix_new(H * T, T), output = matrix_new(T, D);
    multihead_forward(&m, x, true, mask_causal, NULL, weights, output);
    Matrix concat = matrix_new(T, D), pattern = matrix_new(T, T), out = matrix_new(T, DH);
    HeadWeights w = { matrix_new(D, DH), matrix_new(D, DH), matrix_new(D, DH) };
    for (int h = 0; h < H; h++) {
        multihead_split(m.w_query, h, DH, w.query);
        multihead_split(m.w_key, h, DH, w.key);
        multihead_split(m.w_value, h, DH, w.value);
        attention_head(x, w, true, mask_causal, NULL, pattern, out);
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                ck_assert_float_eq_tol(AT(weights, h * T + i, j), AT(pattern, i, j), 1e-6f);
        for (int t = 0; t < T; t++)
            for (int c = 0; c < DH; c++)
                AT(concat, t, h * DH + c) = AT(out, t, c);
    }
    for (int t = 0; t < T; t++)          /* output = concat W_O, in double */
        for (int j = 0; j < D; j++) {
            double sum = 0.0;
            for (int p = 0; p < D; p++)
                sum += (double)AT(concat, t, p) * AT(m.w_out, p, j);
            ck_assert_double_eq_tol(AT(output, t, j), sum, 1e-5);
        }
    multihead_free(&m);
    head_weights_free(&w);
    Matrix *all[] = { &x, &weights, &output, &concat, &pattern, &out };
    for (int a = 0; a < 6; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(every_head_is_causal)
{
    enum { T = 8, D = 32, H = 4 };
    Rng rng;
    rng_seed(&rng, 23, 0);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f);
    MultiHead m = multihead_new(D, H, &rng);
    Matrix weights = matrix_new(H * T, T), output = matrix_new(T, D);
    multihead_forward(&m, x, true, mask_causal, NULL, weights, output);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++) {
            double sum = 0.0;
            for (int j = 0; j < T; j++) {
                if (j > i)
                    ck_assert(AT(weights, h * T + i, j) == 0.0f);
                sum += AT(weights, h * T + i, j);
            }
            ck_assert_double_eq_tol(sum, 1.0, 1e-6);
        }
    multihead_free(&m);
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
}
END_TEST

/* The mask's context reaches every head: one mask, two padding counts, two patterns. */
START_TEST(every_head_receives_the_masks_context)
{
    enum { T = 7, D = 12, H = 3 };
    Rng rng;
    rng_seed(&rng, 25, 0);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f), output = matrix_new(T, D);
    MultiHead m = multihead_new(D, H, &rng);
    Matrix weights = matrix_new(H * T, T);
    const int counts[2] = { 1, 3 };
    for (int c = 0; c < 2; c++) {
        multihead_forward(&m, x, true, mask_causal_padded, &counts[c], weights, output);
        for (int h = 0; h < H; h++) {
            const Matrix pattern = multihead_pattern(weights, h);
            for (int i = 0; i < T; i++)
                for (int j = 0; j < T; j++)
                    if (i < counts[c] || j < counts[c] || j > i)
                        ck_assert(AT(pattern, i, j) == 0.0f);
            ck_assert(AT(pattern, counts[c], counts[c]) == 1.0f);
            ck_assert((AT(pattern, 2, 1) > 0.0f) == (c == 0));
        }
    }
    multihead_free(&m);
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
}
END_TEST

/* Changing token k's embedding must leave rows 0..k-1 of every head and of the output alone. */
START_TEST(no_head_leaks_the_future)
{
    enum { T = 8, D = 16, H = 4, K = 5 };
    Rng rng;
    rng_seed(&rng, 24, 0);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f);
    MultiHead m = multihead_new(D, H, &rng);
    Matrix w1 = matrix_new(H * T, T), o1 = matrix_new(T, D);
    Matrix w2 = matrix_new(H * T, T), o2 = matrix_new(T, D);
    multihead_forward(&m, x, true, mask_causal, NULL, w1, o1);
    for (int c = 0; c < D; c++)
        AT(x, K, c) += 3.0f;
    multihead_forward(&m, x, true, mask_causal, NULL, w2, o2);
    bool later_changed = false;
    for (int t = 0; t < T; t++)
        for (int c = 0; c < D; c++) {
            if (t < K)
                ck_assert(AT(o1, t, c) == AT(o2, t, c));
            else
                later_changed = later_changed || AT(o1, t, c) != AT(o2, t, c);
        }
    ck_assert(later_changed);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < K; i++)
            for (int j = 0; j < T; j++)
                ck_assert(AT(w1, h * T + i, j) == AT(w2, h * T + i, j));
    multihead_free(&m);
    Matrix *all[] = { &x, &w1, &o1, &w2, &o2 };
    for (int a = 0; a < 5; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(toy_layer_depends_only_on_the_seed)
{
    MultiHead a = multihead_toy(32, 4, 7), b = multihead_toy(32, 4, 7), c = multihead_toy(32, 4, 8);
    ck_assert_int_eq(a.d_head, 8);
    bool differs = false;
    for (int e = 0; e < 32 * 32; e++) {
        ck_assert(a.w_query.data[e] == b.w_query.data[e]);
        ck_assert(a.w_out.data[e] == b.w_out.data[e]);
        differs = differs || a.w_query.data[e] != c.w_query.data[e];
    }
    ck_assert(differs);
    multihead_free(&a);
    multihead_free(&b);
    multihead_free(&c);
}
END_TEST

START_TEST(new_refuses_heads_that_split_the_width_unevenly)
{
    Rng rng;
    rng_seed(&rng, 5, 1);
    MultiHead m = multihead_new(6, 4, &rng);
    multihead_free(&m);
}
END_TEST

START_TEST(the_sum_form_is_the_concatenated_form)
{
    enum { T = 5, D = 12, H = 3 };
    Rng rng;
    rng_seed(&rng, 31, 0);
    MultiHead m = multihead_new(D, H, &rng);
    Matrix concat = matrix_new_normal(T, D, &rng, 1.0f), product = matrix_new(T, D),
           sum = matrix_new(T, D);
    matrix_multiply(concat, m.w_out, product);
    multihead_output_as_sum(&m, concat, sum);
    for (int t = 0; t < T; t++)          /* each entry against a sum over heads in double */
        for (int j = 0; j < D; j++) {
            double by_heads = 0.0;
            for (int h = 0; h < H; h++)
                for (int c = 0; c < D / H; c++)
                    by_heads += (double)AT(concat, t, h * (D / H) + c)
                                * AT(m.w_out, h * (D / H) + c, j);
            ck_assert_double_eq_tol(AT(sum, t, j), by_heads, 1e-5);
            ck_assert_double_eq_tol(AT(sum, t, j), AT(product, t, j), 1e-5);
        }
    multihead_free(&m);
    Matrix *all[] = { &concat, &product, &sum };
    for (int a = 0; a < 3; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(the_reader_reads_the_token_and_the_position_of_every_row)
{
    for (int d = HANDBUILT_FEATURES; d <= 64; d += 49) {
        Matrix x = toy_embeddings(d, 5), reader = toy_reader(d, 5),
               features = matrix_new(TOY_LENGTH, HANDBUILT_FEATURES);
        matrix_multiply(x, reader, features);
        for (int t = 0; t < TOY_LENGTH; t++)
            for (int f = 0; f < HANDBUILT_FEATURES; f++) {
                const int one = f == toy_token_ids[t] || f == TOY_VOCABULARY + t;
                ck_assert_float_eq_tol(AT(features, t, f), (float)one, 1e-4f);
            }
        Matrix *all[] = { &x, &reader, &features };
        for (int a = 0; a < 3; a++)
            matrix_free(all[a]);
    }
}
END_TEST

/* The pattern of a hand-built head on the toy sentence, causal and scaled. */
static Matrix handbuilt_pattern(HeadJob job, uint64_t seed)
{
    HeadWeights w = handbuilt_head(job, 32, seed);
    Matrix pattern = matrix_new(TOY_LENGTH, TOY_LENGTH), x = toy_embeddings(32, seed),
           output = matrix_new(TOY_LENGTH, HANDBUILT_FEATURES);
    attention_head(x, w, true, mask_causal, NULL, pattern, output);
    head_weights_free(&w);
    matrix_free(&x);
    matrix_free(&output);
    return pattern;
}

/* Row i of a hand-built head: weight e^g on the chosen key, 1 on every other allowed key
 * with score 0, and e^(g/2) on a key with half the gap (the duplicate head's own key). */
static double closed_form(double chosen, int others, double half)
{
    const double g = HANDBUILT_GAP;
    return chosen * exp(g) / (chosen * exp(g) + others + half * exp(g / 2));
}

START_TEST(the_previous_token_head_looks_at_the_previous_token)
{
    for (uint64_t seed = 0; seed < 3; seed++) {
        Matrix a = handbuilt_pattern(HEAD_PREVIOUS, seed);
        ck_assert_float_eq(AT(a, 0, 0), 1.0f);
        for (int i = 1; i < TOY_LENGTH; i++)
            ck_assert_double_eq_tol(AT(a, i, i - 1), closed_form(1, i, 0), 1e-4);
        matrix_free(&a);
    }
}
END_TEST

START_TEST(the_first_token_head_looks_at_the_first_token)
{
    for (uint64_t seed = 0; seed < 3; seed++) {
        Matrix a = handbuilt_pattern(HEAD_FIRST, seed);
        for (int i = 0; i < TOY_LENGTH; i++)
            ck_assert_double_eq_tol(AT(a, i, 0), closed_form(1, i, 0), 1e-4);
        matrix_free(&a);
    }
}
END_TEST

START_TEST(the_duplicate_token_head_sends_the_second_the_to_the_first)
{
    for (uint64_t seed = 0; seed < 3; seed++) {
        Matrix a = handbuilt_pattern(HEAD_DUPLICATE, seed);
        ck_assert_str_eq(toy_tokens[4], toy_tokens[0]);
        /* Row 4: key 0 has the gap, key 4 (itself) half of it, keys 1-3 nothing. */
        ck_assert_double_eq_tol(AT(a, 4, 0), closed_form(1, 3, 1), 1e-4);
        for (int i = 1; i < TOY_LENGTH; i++)          /* a token without a copy: itself */
            if (i != 4)
                ck_assert_double_eq_tol(AT(a, i, i),
                                        exp(HANDBUILT_GAP / 2) / (exp(HANDBUILT_GAP / 2) + i),
                                        1e-4);
        matrix_free(&a);
    }
}
END_TEST

START_TEST(distance_is_zero_for_equal_heads_and_one_for_disjoint_rows)
{
    enum { T = 4 };
    Matrix a = matrix_new(T, T), b = matrix_new(T, T);
    for (int i = 0; i < T; i++) {
        AT(a, i, 0) = 1.0f;                       /* every row on key 0 */
        AT(b, i, i > 0 ? i : 0) = 1.0f;           /* every row but row 0 elsewhere */
    }
    ck_assert_double_eq(multihead_distance(a, a), 0.0);
    ck_assert_double_eq(multihead_distance(a, b), 1.0);
    AT(b, 1, 0) = 0.5f, AT(b, 1, 1) = 0.5f;       /* row 1 now half on key 0 */
    ck_assert_double_eq_tol(multihead_distance(a, b), (0.5 + 1 + 1) / 3, 1e-12);
    matrix_free(&a);
    matrix_free(&b);
}
END_TEST

START_TEST(reader_refuses_a_model_narrower_than_its_parts)
{
    Matrix reader = toy_reader(HANDBUILT_FEATURES - 1, 0);
    matrix_free(&reader);
}
END_TEST

Suite *multihead_suite(void)
{
    Suite *suite = suite_create("multihead");
    TCase *reshape = tcase_create("reshape");
    tcase_add_test(reshape, head_width_divides_or_is_zero);
    tcase_add_test(reshape, offset_is_the_reshape_of_the_row_major_buffer);
    tcase_add_test(reshape, split_takes_the_heads_columns);
    tcase_add_test(reshape, merge_writes_only_the_heads_columns);
    suite_add_tcase(suite, reshape);
    TCase *forward = tcase_create("forward");
    tcase_add_test(forward, one_head_is_attention_head);
    tcase_add_test(forward, each_head_is_attention_head_on_its_slice);
    tcase_add_test(forward, every_head_is_causal);
    tcase_add_test(forward, every_head_receives_the_masks_context);
    tcase_add_test(forward, no_head_leaks_the_future);
    tcase_add_test(forward, toy_layer_depends_only_on_the_seed);
    tcase_add_test(forward, the_sum_form_is_the_concatenated_form);
    suite_add_tcase(suite, forward);
    TCase *known = tcase_create("hand-built heads");
    tcase_add_test(known, the_reader_reads_the_token_and_the_position_of_every_row);
    tcase_add_test(known, the_previous_token_head_looks_at_the_previous_token);
    tcase_add_test(known, the_first_token_head_looks_at_the_first_token);
    tcase_add_test(known, the_duplicate_token_head_sends_the_second_the_to_the_first);
    tcase_add_test(known, distance_is_zero_for_equal_heads_and_one_for_disjoint_rows);
    suite_add_tcase(suite, known);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, new_refuses_heads_that_split_the_width_unevenly, SIGABRT);
    tcase_add_test_raise_signal(refused, reader_refuses_a_model_narrower_than_its_parts, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
