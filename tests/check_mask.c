/* Tests of the mask module (chapter 3): the causal mask forbids exactly the entries above the
 * diagonal; masked weights are exactly 0.0f and rows still sum to 1; row 0 is all on itself;
 * the leak test (exact zeros before the changed position, non-zero from it on; non-zero before
 * it without the mask, and when weights are zeroed after the softmax); rows in which every
 * entry is masked give zero weights and zero outputs, never NaN; the padding count reaches
 * the combined mask through its context. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "attention.h"
#include "mask.h"
#include "softmax.h"
#include "refusal.h"

/* The test of exercise ex:masking-causal: it calls mask_causal directly. */
START_TEST(the_causal_mask_forbids_exactly_the_entries_above_the_diagonal)
{
    const int shapes[][2] = { { 6, 6 }, { 4, 7 }, { 7, 4 }, { 1, 1 }, { 1, 5 } };
    for (int s = 0; s < 5; s++) {
        const int rows = shapes[s][0], cols = shapes[s][1];
        Matrix m = matrix_new(rows, cols);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                AT(m, i, j) = (float)(1 + i * cols + j);
        mask_causal(m, NULL);
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++) {
                if (j > i)
                    ck_assert(isinf(AT(m, i, j)) && AT(m, i, j) < 0.0f);
                else
                    ck_assert(AT(m, i, j) == (float)(1 + i * cols + j));
            }
        matrix_free(&m);
    }
}
END_TEST

START_TEST(masked_weights_are_exactly_zero_and_rows_still_sum_to_one)
{
    const int T = 13, d = 10, dk = 6;
    Rng rng;
    rng_seed(&rng, 21, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), weights = matrix_new(T, T),
           output = matrix_new(T, dk), v = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    attention_head(x, w, true, mask_causal, NULL, weights, output);
    for (int i = 0; i < T; i++) {
        double sum = 0.0;
        for (int j = 0; j < T; j++) {
            if (j > i)
                ck_assert(AT(weights, i, j) == 0.0f);
            else
                ck_assert(AT(weights, i, j) > 0.0f);
            sum += AT(weights, i, j);
        }
        ck_assert_double_eq_tol(sum, 1.0, 1e-6);
    }
    /* Row 0 can only look at itself: weight exactly 1, output exactly its value vector. */
    ck_assert(AT(weights, 0, 0) == 1.0f);
    matrix_multiply(x, w.value, v);
    ck_assert(memcmp(&AT(output, 0, 0), &AT(v, 0, 0), sizeof(float) * dk) == 0);
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
    matrix_free(&v);
    head_weights_free(&w);
}
END_TEST

/* Row i of the masked pattern is the softmax of the allowed scores S_i0 .. S_ii alone,
 * computed here in double from Q and K.  It is also the unmasked row's first i + 1 weights
 * scaled up to sum to 1, and the last row, which loses nothing, is the unmasked one. */
START_TEST(a_masked_row_is_the_softmax_of_its_allowed_scores)
{
    const int T = 11, d = 9, dk = 5;
    Rng rng;
    rng_seed(&rng, 22, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), weights = matrix_new(T, T),
           plain = matrix_new(T, T), output = matrix_new(T, dk), q = matrix_new(T, dk),
           k = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    attention_head(x, w, true, mask_causal, NULL, weights, output);
    attention_head(x, w, true, NULL, NULL, plain, output);
    matrix_multiply(x, w.query, q);
    matrix_multiply(x, w.key, k);
    for (int i = 0; i < T; i++) {
        double e[11], total = 0.0, kept = 0.0;
        for (int j = 0; j <= i; j++) {
            double dot = 0.0;
            for (int c = 0; c < dk; c++)
                dot += (double)AT(q, i, c) * AT(k, j, c);
            total += e[j] = exp(dot / sqrt((double)dk));
            kept += AT(plain, i, j);
        }
        for (int j = 0; j <= i; j++) {
            ck_assert_double_le(fabs(AT(weights, i, j) - e[j] / total), 1e-6);
            ck_assert_double_le(fabs(AT(weights, i, j) - AT(plain, i, j) / kept), 1e-6);
        }
    }
    ck_assert(memcmp(&AT(weights, T - 1, 0), &AT(plain, T - 1, 0), sizeof(float) * T) == 0);
    Matrix *all[] = { &x, &weights, &plain, &output, &q, &k };
    for (int m = 0; m < 6; m++)
        matrix_free(all[m]);
    head_weights_free(&w);
}
END_TEST

/* The seed's experiment A: n 16, d 32, d_k 8, the input at position 10 changes. */
static void leak_setup(Matrix *x, HeadWeights *w, float *delta)
{
    Rng rng;
    rng_seed(&rng, 23, 1);
    *x = matrix_new_normal(16, 32, &rng, 1.0f);
    *w = head_weights_new(32, 8, &rng);
    for (int c = 0; c < 32; c++)
        delta[c] = (float)rng_normal(&rng);
}

START_TEST(with_the_mask_nothing_before_the_change_moves)
{
    Matrix x;
    HeadWeights w;
    float delta[32], change[16];
    leak_setup(&x, &w, delta);
    mask_leak(x, w, mask_causal, NULL, 10, delta, change);
    for (int i = 0; i < 10; i++)
        ck_assert(change[i] == 0.0f);
    for (int i = 10; i < 16; i++)
        ck_assert(change[i] > 1e-4f);
    matrix_free(&x);
    head_weights_free(&w);
}
END_TEST

START_TEST(without_the_mask_every_position_moves)
{
    Matrix x;
    HeadWeights w;
    float delta[32], change[16];
    leak_setup(&x, &w, delta);
    mask_leak(x, w, NULL, NULL, 10, delta, change);
    for (int i = 0; i < 16; i++)
        ck_assert(change[i] > 1e-4f);
    matrix_free(&x);
    head_weights_free(&w);
}
END_TEST

/* mask_leak's change agrees with two runs of the head compared directly, and the masked
 * outputs before the changed position are bit for bit the same. */
START_TEST(the_leak_is_the_largest_change_of_each_output_row)
{
    Matrix x, moved = matrix_new(16, 32), weights = matrix_new(16, 16),
           before = matrix_new(16, 8), after = matrix_new(16, 8);
    HeadWeights w;
    float delta[32], change[16];
    leak_setup(&x, &w, delta);
    memcpy(moved.data, x.data, sizeof(float) * 16 * 32);
    for (int c = 0; c < 32; c++)
        AT(moved, 10, c) += delta[c];
    for (int masked = 0; masked < 2; masked++) {
        ScoreMask mask = masked ? mask_causal : NULL;
        mask_leak(x, w, mask, NULL, 10, delta, change);
        attention_head(x, w, true, mask, NULL, weights, before);
        attention_head(moved, w, true, mask, NULL, weights, after);
        for (int i = 0; i < 16; i++) {
            float largest = 0.0f;
            for (int c = 0; c < 8; c++)
                largest = fmaxf(largest, fabsf(AT(after, i, c) - AT(before, i, c)));
            ck_assert_float_eq_tol(change[i], largest, 1e-6f);
            if (masked && i < 10)
                ck_assert(memcmp(&AT(after, i, 0), &AT(before, i, 0), sizeof(float) * 8) == 0);
        }
    }
    matrix_free(&x);
    matrix_free(&moved);
    matrix_free(&weights);
    matrix_free(&before);
    matrix_free(&after);
    head_weights_free(&w);
}
END_TEST

/* The mistake of section "Minus infinity before the softmax": zeroing the weights after it
 * still lets the future in through the denominators.  mask_head_zeroed_after is checked
 * against its definition, built here from chapter 2's unmasked head: its weights with the
 * upper triangle zeroed, times X W_V.  The same operations in the same order: equal bits. */
START_TEST(zeroing_the_weights_after_the_softmax_still_leaks)
{
    Matrix x, moved = matrix_new(16, 32), weights = matrix_new(16, 16),
           before = matrix_new(16, 8), after = matrix_new(16, 8), v = matrix_new(16, 8),
           reference = matrix_new(16, 8);
    HeadWeights w;
    float delta[32], change[16];
    leak_setup(&x, &w, delta);
    memcpy(moved.data, x.data, sizeof(float) * 16 * 32);
    for (int c = 0; c < 32; c++)
        AT(moved, 10, c) += delta[c];
    Matrix *inputs[2] = { &x, &moved }, *outputs[2] = { &before, &after };
    for (int run = 0; run < 2; run++) {
        mask_head_zeroed_after(*inputs[run], w, *outputs[run]);
        attention_head(*inputs[run], w, true, NULL, NULL, weights, reference);
        for (int i = 0; i < 16; i++)
            for (int j = i + 1; j < 16; j++)
                AT(weights, i, j) = 0.0f;
        matrix_multiply(*inputs[run], w.value, v);
        matrix_multiply(weights, v, reference);
        ck_assert(memcmp(outputs[run]->data, reference.data, sizeof(float) * 16 * 8) == 0);
    }
    mask_row_change(before, after, change);
    for (int i = 0; i < 10; i++)
        ck_assert(change[i] > 1e-5f);
    Matrix *all[] = { &x, &moved, &weights, &before, &after, &v, &reference };
    for (int m = 0; m < 7; m++)
        matrix_free(all[m]);
    head_weights_free(&w);
}
END_TEST

/* The three-number example of section "Minus infinity before the softmax": row 1 of scores
 * (1, 2, 200), the last one in the future.  Zeroing after the softmax and dividing by the new
 * sum gives 0/0; masking before it gives the softmax of (1, 2). */
START_TEST(renormalising_after_the_softmax_divides_zero_by_zero)
{
    float after[3] = { 1.0f, 2.0f, 200.0f }, before[3] = { 1.0f, 2.0f, -INFINITY };
    softmax_row(after, 3);
    ck_assert(after[0] == 0.0f && after[1] == 0.0f && after[2] == 1.0f);
    after[2] = 0.0f;
    const float sum = after[0] + after[1] + after[2];
    for (int j = 0; j < 2; j++)
        ck_assert(isnan(after[j] / sum));
    softmax_row(before, 3);
    const double e = exp(-1.0);
    ck_assert(fabs(before[0] - e / (1.0 + e)) < 1e-6);
    ck_assert(fabs(before[1] - 1.0 / (1.0 + e)) < 1e-6);
    ck_assert(before[2] == 0.0f);
}
END_TEST

START_TEST(the_padding_mask_forbids_exactly_the_first_keys)
{
    Matrix m = matrix_new(5, 6);
    for (int e = 0; e < 30; e++)
        m.data[e] = (float)e;
    mask_padding(m, 2);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++) {
            if (j < 2)
                ck_assert(isinf(AT(m, i, j)) && AT(m, i, j) < 0.0f);
            else
                ck_assert(AT(m, i, j) == (float)(i * 6 + j));
        }
    mask_padding(m, 0);
    ck_assert(AT(m, 3, 2) == 20.0f);
    matrix_free(&m);
}
END_TEST

static void causal_after_two_padded(Matrix scores, const void *context)
{
    (void)context;
    for (int i = 0; i < scores.rows; i++)
        for (int j = 0; j < scores.cols; j++)
            if (j > i || j < 2)
                AT(scores, i, j) = -INFINITY;
}

/* A row in which every entry is masked: zero weights, a zero output row, and no NaN
 * anywhere; the other rows are untouched by it.  The mask is written here so that the test
 * pins the softmax's behaviour even before the exercise's mask is written. */
START_TEST(a_row_with_everything_masked_gives_zeros_not_nan)
{
    const int T = 7, d = 6, dk = 4;
    Rng rng;
    rng_seed(&rng, 24, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), weights = matrix_new(T, T),
           output = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    attention_head(x, w, true, causal_after_two_padded, NULL, weights, output);
    for (int i = 0; i < T; i++) {
        double sum = 0.0;
        for (int j = 0; j < T; j++) {
            ck_assert(!isnan(AT(weights, i, j)));
            if (i < 2 || j < 2 || j > i)
                ck_assert(AT(weights, i, j) == 0.0f);
            sum += AT(weights, i, j);
        }
        for (int c = 0; c < dk; c++) {
            ck_assert(!isnan(AT(output, i, c)));
            if (i < 2)
                ck_assert(AT(output, i, c) == 0.0f);
        }
        ck_assert_double_eq_tol(sum, i < 2 ? 0.0 : 1.0, 1e-6);
    }
    ck_assert(AT(weights, 2, 2) == 1.0f);
    matrix_free(&x);
    matrix_free(&weights);
    matrix_free(&output);
    head_weights_free(&w);
}
END_TEST

START_TEST(the_module_masks_combine_into_all_masked_rows)
{
    Matrix s = matrix_new(4, 4);
    matrix_fill(s, 3.0f);
    mask_causal(s, NULL);
    mask_padding(s, 2);
    softmax_rows(s);
    const float expected[4][4] = { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 1, 0 },
                                   { 0, 0, 0.5f, 0.5f } };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            ck_assert(AT(s, i, j) == expected[i][j]);
    matrix_free(&s);
}
END_TEST

/* The context reaches the mask: one function, mask_causal_padded, handed two counts through
 * attention_head, masks two different sets of rows; on a matrix it is mask_causal then
 * mask_padding with the count the context points at. */
START_TEST(the_padding_count_reaches_the_mask_through_its_context)
{
    const int T = 6, d = 5, dk = 3;
    Rng rng;
    rng_seed(&rng, 26, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), output = matrix_new(T, dk);
    HeadWeights w = head_weights_new(d, dk, &rng);
    const int counts[2] = { 1, 3 };
    Matrix weights[2] = { matrix_new(T, T), matrix_new(T, T) };
    for (int c = 0; c < 2; c++) {
        attention_head(x, w, true, mask_causal_padded, &counts[c], weights[c], output);
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                if (i < counts[c] || j < counts[c] || j > i)
                    ck_assert(AT(weights[c], i, j) == 0.0f);
        ck_assert(AT(weights[c], counts[c], counts[c]) == 1.0f);
    }
    ck_assert(AT(weights[0], 2, 1) > 0.0f && AT(weights[1], 2, 1) == 0.0f);
    for (int padded = 0; padded <= T; padded++) {
        Matrix a = matrix_new(T, T), b = matrix_new(T, T);
        for (int e = 0; e < T * T; e++)
            a.data[e] = b.data[e] = (float)e;
        mask_causal_padded(a, &padded);
        mask_causal(b, NULL);
        mask_padding(b, padded);
        ck_assert(memcmp(a.data, b.data, sizeof(float) * (size_t)(T * T)) == 0);
        matrix_free(&a);
        matrix_free(&b);
    }
    Matrix *all[] = { &x, &output, &weights[0], &weights[1] };
    for (int m = 0; m < 4; m++)
        matrix_free(all[m]);
    head_weights_free(&w);
}
END_TEST

START_TEST(leak_refuses_a_position_past_the_sequence)
{
    Rng rng;
    rng_seed(&rng, 3, 1);
    Matrix x = matrix_new(4, 6);
    HeadWeights w = head_weights_new(6, 3, &rng);
    float delta[6] = { 0 }, change[4];
    mask_leak(x, w, mask_causal, NULL, 4, delta, change);   /* positions are 0 to 3 */
    head_weights_free(&w);
    matrix_free(&x);
}
END_TEST

START_TEST(padding_refuses_more_padded_keys_than_keys)
{
    Matrix scores = matrix_new(4, 4);
    mask_padding(scores, 5);
    matrix_free(&scores);
}
END_TEST

START_TEST(the_zeroed_head_refuses_an_output_of_the_wrong_width)
{
    Rng rng;
    rng_seed(&rng, 3, 1);
    Matrix x = matrix_new(4, 6), output = matrix_new(4, 2);
    HeadWeights w = head_weights_new(6, 3, &rng);
    mask_head_zeroed_after(x, w, output);               /* the values are 3 wide */
    head_weights_free(&w);
    matrix_free(&x);
    matrix_free(&output);
}
END_TEST

Suite *mask_suite(void)
{
    Suite *suite = suite_create("mask");
    TCase *core = tcase_create("causal mask");
    tcase_add_test(core, the_causal_mask_forbids_exactly_the_entries_above_the_diagonal);
    tcase_add_test(core, masked_weights_are_exactly_zero_and_rows_still_sum_to_one);
    tcase_add_test(core, a_masked_row_is_the_softmax_of_its_allowed_scores);
    tcase_add_test(core, with_the_mask_nothing_before_the_change_moves);
    tcase_add_test(core, without_the_mask_every_position_moves);
    tcase_add_test(core, the_leak_is_the_largest_change_of_each_output_row);
    tcase_add_test(core, zeroing_the_weights_after_the_softmax_still_leaks);
    tcase_add_test(core, renormalising_after_the_softmax_divides_zero_by_zero);
    tcase_add_test(core, the_padding_mask_forbids_exactly_the_first_keys);
    tcase_add_test(core, a_row_with_everything_masked_gives_zeros_not_nan);
    tcase_add_test(core, the_module_masks_combine_into_all_masked_rows);
    tcase_add_test(core, the_padding_count_reaches_the_mask_through_its_context);
    suite_add_tcase(suite, core);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, leak_refuses_a_position_past_the_sequence, SIGABRT);
    tcase_add_test_raise_signal(refused, padding_refuses_more_padded_keys_than_keys, SIGABRT);
    tcase_add_test_raise_signal(refused, the_zeroed_head_refuses_an_output_of_the_wrong_width,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
