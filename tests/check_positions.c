/* Tests of the positions module (chapter 10): RoPE turns each pair by the rotation matrix
 * written out, keeps norms, makes scores depend only on the offset, and its two layouts agree
 * after reordering the coordinates; turning rows from a first position equals turning a longer
 * matrix from 0; undoing a turn gives the input back. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
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
            Matrix64 q = matrix64_new(1, width), k = matrix64_new(1, width),
                     q2 = matrix64_new(1, width), k2 = matrix64_new(1, width);
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
            Matrix64 k3 = matrix64_new(1, width);
            memcpy(k3.data, k2.data, sizeof(double) * width);
            rope_rotate64(k3, 1, width, (RopeLayout)layout, 10000.0, false);
            double s3 = 0.0;
            for (int c = 0; c < width; c++)
                s3 += q2.data[c] * k3.data[c];
            ck_assert_double_gt(fabs(s3 - s2), 1e-3 * size);
            Matrix64 *all[] = { &q, &k, &q2, &k2, &k3 };
            for (int a = 0; a < 5; a++)
                matrix64_free(all[a]);
        }
}
END_TEST

START_TEST(rope_keeps_norms_and_undo_turns_back)
{
    Rng rng;
    rng_seed(&rng, 33, 1);
    for (int layout = ROPE_INTERLEAVED; layout <= ROPE_HALF_SPLIT; layout++) {
        Matrix64 x = matrix64_new(9, 24), y = matrix64_new(9, 24);
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
        matrix64_free(&x);
        matrix64_free(&y);
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
    suite_add_tcase(suite, rope);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, rope_refuses_an_odd_head_width, SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_heads_that_do_not_tile_the_row,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_a_negative_position, SIGABRT);
    tcase_add_test_raise_signal(refused, rope_refuses_a_base_of_one, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
