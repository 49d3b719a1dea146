/* Tests of the multihead module (chapter 5): the head width, the reshape's offsets, split and
 * merge, one head with W_O = I against the single head of chapter 2, every head against the
 * single head on its slice, and the causal mask in every head. */
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
    multihead_forward(&m, x, scale, mask, weights, output);
    const HeadWeights w = { m.w_query, m.w_key, m.w_value };
    attention_head(x, w, scale, mask, single, single_output);
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
    multihead_forward(&m, x, true, mask_causal, weights, output);
    Matrix concat = matrix_new(T, D), pattern = matrix_new(T, T), out = matrix_new(T, DH);
    HeadWeights w = { matrix_new(D, DH), matrix_new(D, DH), matrix_new(D, DH) };
    for (int h = 0; h < H; h++) {
        multihead_split(m.w_query, h, DH, w.query);
        multihead_split(m.w_key, h, DH, w.key);
        multihead_split(m.w_value, h, DH, w.value);
        attention_head(x, w, true, mask_causal, pattern, out);
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
    multihead_forward(&m, x, true, mask_causal, weights, output);
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
    multihead_forward(&m, x, true, mask_causal, w1, o1);
    for (int c = 0; c < D; c++)
        AT(x, K, c) += 3.0f;
    multihead_forward(&m, x, true, mask_causal, w2, o2);
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
    tcase_add_test(forward, no_head_leaks_the_future);
    tcase_add_test(forward, toy_layer_depends_only_on_the_seed);
    suite_add_tcase(suite, forward);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, new_refuses_heads_that_split_the_width_unevenly, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
