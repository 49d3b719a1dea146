/* Tests of the ring module (chapter 15) and of chapter 7's block kernel, which it runs: every
 * layout's shares cover the sequence once, with the remainders where the chapter says; gather
 * and scatter are inverse; the pairs counted equal a loop over every pair, and the balances
 * their closed forms; the block kernel equals chapter 2's attend without a mask and chapter 7's
 * flash with one, two halves merged equal the whole, rows spread with a step equal the causal
 * rows, a fully masked row merges without NaN; the ring in one process equals flash or attend
 * for P = 1 to 4 in every layout; Ulysses's split by heads is undone by its join, and Ulysses
 * with its all-to-alls done by copying equals the ring head by head.  The MPI ring itself is
 * checked by its program (make check's MPI step), since MPI cannot start inside Check's forked
 * tests. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "attention.h"
#include "cost.h"
#include "decode.h"
#include "ring.h"
#include "refusal.h"

enum { D = 64 };

static Matrix random_matrix(int rows, int cols, uint64_t stream)
{
    Rng rng;
    rng_seed(&rng, 2026, stream);
    return matrix_new_normal(rows, cols, &rng, 1.0f);
}

/* Two float computations of a convex combination of n value rows: each sum of n terms errs
 * by at most n * eps of the sum of magnitudes, at most max|v|, so the two differ by at most
 * twice that; twice again covers the exponentials' few ulps of relative error. */
static float tolerance(Matrix v)
{
    float largest = 0.0f;
    for (size_t i = 0; i < (size_t)v.rows * v.cols; i++)
        largest = fmaxf(largest, fabsf(v.data[i]));
    return 4.0f * (float)v.rows * FLT_EPSILON * largest;
}

static float largest_difference(Matrix a, Matrix b)
{
    float most = 0.0f;
    for (size_t i = 0; i < (size_t)a.rows * a.cols; i++)
        most = fmaxf(most, fabsf(a.data[i] - b.data[i]));
    return most;
}

START_TEST(every_layout_covers_the_sequence_once)
{
    for (int layout = 0; layout < RING_LAYOUTS; layout++)
        for (int ranks = 1; ranks <= 4; ranks++)
            for (int n = 2 * ranks; n <= 40; n++) {
                int *seen = calloc((size_t)n, sizeof *seen), total = 0;
                for (int r = 0; r < ranks; r++) {
                    const RingShare s = ring_share((RingLayout)layout, n, ranks, r);
                    int rows = 0;
                    for (int a = 0; a < s.runs; a++) {
                        ck_assert_int_ge(s.run[a].rows, 1);
                        for (int i = 0; i < s.run[a].rows; i++)
                            seen[s.run[a].first + i * s.run[a].step]++;
                        rows += s.run[a].rows;
                    }
                    ck_assert_int_eq(rows, s.rows);
                    ck_assert_int_le(abs(s.rows - n / ranks), 2);
                    total += rows;
                }
                ck_assert_int_eq(total, n);
                for (int i = 0; i < n; i++)
                    ck_assert_int_eq(seen[i], 1);
                free(seen);
            }
}
END_TEST

START_TEST(the_remainders_go_where_the_chapter_says)
{
    /* Plain: the first n mod P ranks one row longer. */
    const RingShare p = ring_share(RING_PLAIN, 10, 4, 1), q = ring_share(RING_PLAIN, 10, 4, 2);
    ck_assert_int_eq(p.rows, 3);
    ck_assert_int_eq(p.run[0].first, 3);
    ck_assert_int_eq(q.rows, 2);
    ck_assert_int_eq(q.run[0].first, 6);
    /* Zigzag, n = 10, P = 2: chunks 0-2, 3-5, 6-7, 8-9; rank 0 holds 0 and 3 (exercise). */
    const RingShare z = ring_share(RING_ZIGZAG, 10, 2, 0);
    ck_assert_int_eq(z.runs, 2);
    ck_assert_int_eq(z.run[0].first, 0);
    ck_assert_int_eq(z.run[0].rows, 3);
    ck_assert_int_eq(z.run[1].first, 8);
    ck_assert_int_eq(z.run[1].rows, 2);
    ck_assert_double_eq(ring_pairs(z, 10, true), 25.0);
    ck_assert_double_eq(ring_pairs(ring_share(RING_ZIGZAG, 10, 2, 1), 10, true), 30.0);
    /* Striped: row i on rank i mod P. */
    const RingShare s = ring_share(RING_STRIPED, 10, 4, 1);
    ck_assert_int_eq(s.run[0].first, 1);
    ck_assert_int_eq(s.run[0].step, 4);
    ck_assert_int_eq(s.rows, 3);
}
END_TEST

START_TEST(ranks_differ_by_at_most_one_row)
{
    /* Every layout, every n from 2P to 64: the ranks' rows sum to n and differ by at most one,
     * also for the zigzag when n mod 2P > P, where some ranks get two longer chunks. */
    for (int layout = 0; layout < RING_LAYOUTS; layout++)
        for (int ranks = 1; ranks <= 4; ranks++)
            for (int n = 2 * ranks; n <= 64; n++) {
                int least = n, most = 0, total = 0;
                for (int r = 0; r < ranks; r++) {
                    const int rows = ring_share((RingLayout)layout, n, ranks, r).rows;
                    least = rows < least ? rows : least;
                    most = rows > most ? rows : most;
                    total += rows;
                }
                ck_assert_int_eq(total, n);
                ck_assert_int_le(most - least, 1);
            }
    /* n = 15, P = 2: e = 3 > P; chunks of 4, 4, 4, 3; rank 1 holds chunks 1 and 2, 8 rows. */
    ck_assert_int_eq(ring_share(RING_ZIGZAG, 15, 2, 1).rows, 8);
    ck_assert_int_eq(ring_share(RING_ZIGZAG, 15, 2, 0).rows, 7);
}
END_TEST

START_TEST(scatter_undoes_gather)
{
    const int n = 37;
    Matrix x = random_matrix(n, 3, 1), back = matrix_new(n, 3);
    matrix_fill(back, NAN);
    for (int layout = 0; layout < RING_LAYOUTS; layout++) {
        for (int r = 0; r < 4; r++) {
            const RingShare s = ring_share((RingLayout)layout, n, 4, r);
            Matrix local = matrix_new(s.rows, 3);
            ring_gather(x, s, local);
            ring_scatter(local, s, back);
            matrix_free(&local);
        }
        ck_assert_int_eq(memcmp(x.data, back.data, sizeof(float) * n * 3), 0);
        matrix_fill(back, NAN);
    }
    matrix_free(&x);
    matrix_free(&back);
}
END_TEST

START_TEST(pairs_are_counted_as_a_loop_counts_them)
{
    for (int layout = 0; layout < RING_LAYOUTS; layout++)
        for (int ranks = 1; ranks <= 4; ranks++)
            for (int n = 2 * ranks; n <= 45; n += 7)
                for (int r = 0; r < ranks; r++) {
                    const RingShare s = ring_share((RingLayout)layout, n, ranks, r);
                    double loop = 0.0;
                    for (int a = 0; a < s.runs; a++)
                        for (int i = 0; i < s.run[a].rows; i++)
                            for (int key = 0; key < n; key++)
                                loop += key <= s.run[a].first + i * s.run[a].step;
                    ck_assert_double_eq(ring_pairs(s, n, true), loop);
                    ck_assert_double_eq(ring_pairs(s, n, false), (double)s.rows * n);
                }
}
END_TEST

START_TEST(the_balances_have_their_closed_forms)
{
    for (int ranks = 1; ranks <= 4; ranks++) {
        const int n = 2 * ranks * 256, c = n / ranks, m = n / ranks;
        const double cc = c;
        const double plain = (cc * cc * (ranks - 1) + cc * (cc + 1) / 2)
                             / (cc * cc * (ranks - 1) / 2 + cc * (cc + 1) / 2);
        ck_assert_double_eq_tol(ring_balance(RING_PLAIN, n, ranks, true), plain, 1e-12);
        ck_assert_double_eq_tol(ring_balance(RING_ZIGZAG, n, ranks, true), 1.0, 1e-12);
        ck_assert_double_eq_tol(ring_balance(RING_STRIPED, n, ranks, true),
                                ranks * (m + 1.0) / (ranks * (double)m + 1.0), 1e-12);
        for (int layout = 0; layout < RING_LAYOUTS; layout++)
            ck_assert_double_eq(ring_balance((RingLayout)layout, n, ranks, false), 1.0);
    }
    /* The plain layout tends to (2P - 1)/P: 1.75 at P = 4. */
    ck_assert_double_eq_tol(ring_balance(RING_PLAIN, 1 << 20, 4, true), 1.75, 1e-5);
}
END_TEST

/* The part over all keys, divided: the output of one head. */
static void divide(Matrix part, const float *sum, Matrix out)
{
    for (int i = 0; i < part.rows; i++)
        for (int c = 0; c < part.cols; c++)
            AT(out, i, c) = sum[i] > 0.0f ? AT(part, i, c) / sum[i] : 0.0f;
}

START_TEST(the_block_kernel_without_a_mask_is_attend)
{
    const int nq = 70, nk = 131;
    Matrix q = random_matrix(nq, D, 2), k = random_matrix(nk, D, 3), v = random_matrix(nk, D, 4);
    Matrix part = matrix_new(nq, D), out = matrix_new(nq, D), expected = matrix_new(nq, D);
    Matrix weights = matrix_new(nq, nk);
    float max[70], sum[70];
    cost_attend_part(q, (CostPositions){ 500, 1 }, k, v, (CostPositions){ 9000, 3 },
                     COST_MASK_NONE, part, max, sum, NULL, NULL);
    divide(part, sum, out);
    attend(q, k, v, true, NULL, NULL, weights, expected);
    ck_assert_float_le(largest_difference(out, expected), tolerance(v));
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&part);
    matrix_free(&out), matrix_free(&expected), matrix_free(&weights);
}
END_TEST

START_TEST(the_causal_block_kernel_is_flash)
{
    const int n = 203;
    Matrix q = random_matrix(n, D, 5), k = random_matrix(n, D, 6), v = random_matrix(n, D, 7);
    Matrix part = matrix_new(n, D), out = matrix_new(n, D), expected = matrix_new(n, D);
    float max[203], sum[203];
    cost_attend_part(q, (CostPositions){ 0, 1 }, k, v, (CostPositions){ 0, 1 },
                     COST_MASK_CAUSAL, part, max, sum, NULL, NULL);
    divide(part, sum, out);
    cost_attend(COST_FLASH, q, k, v, expected, 1);
    ck_assert_float_le(largest_difference(out, expected), tolerance(v));
    matrix_free(&q), matrix_free(&k), matrix_free(&v);
    matrix_free(&part), matrix_free(&out), matrix_free(&expected);
}
END_TEST

START_TEST(two_halves_merged_are_the_whole)
{
    const int n = 150, half = 77;
    Matrix q = random_matrix(n, D, 8), k = random_matrix(n, D, 9), v = random_matrix(n, D, 10);
    Matrix whole = matrix_new(n, D), first = matrix_new(n, D), second = matrix_new(n, D);
    float m[150], l[150], m1[150], l1[150], m2[150], l2[150];
    const CostPositions from0 = { 0, 1 };
    cost_attend_part(q, from0, k, v, from0, COST_MASK_CAUSAL, whole, m, l, NULL, NULL);
    Matrix k1 = { half, D, k.data }, v1 = { half, D, v.data };
    Matrix k2 = { n - half, D, k.data + (size_t)half * D };
    Matrix v2 = { n - half, D, v.data + (size_t)half * D };
    cost_attend_part(q, from0, k1, v1, from0, COST_MASK_CAUSAL, first, m1, l1, NULL, NULL);
    cost_attend_part(q, from0, k2, v2, (CostPositions){ half, 1 }, COST_MASK_CAUSAL,
                     second, m2, l2, NULL, NULL);
    for (int i = 0; i < n; i++) {
        /* Rows before the second half see none of it: m = -inf, l = 0, no NaN merged. */
        if (i < half) {
            ck_assert(m2[i] == -INFINITY && l2[i] == 0.0f);
        }
        decode_add_part(&AT(first, i, 0), &m1[i], &l1[i], &AT(second, i, 0), m2[i], l2[i], D);
    }
    Matrix a = matrix_new(n, D), b = matrix_new(n, D);
    divide(whole, l, a);
    divide(first, l1, b);
    ck_assert_float_le(largest_difference(a, b), tolerance(v));
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&whole);
    matrix_free(&first), matrix_free(&second), matrix_free(&a), matrix_free(&b);
}
END_TEST

START_TEST(rows_spread_with_a_step_are_the_causal_rows)
{
    const int n = 160, step = 3;
    Matrix q = random_matrix(n, D, 11), k = random_matrix(n, D, 12), v = random_matrix(n, D, 13);
    Matrix expected = matrix_new(n, D);
    cost_attend(COST_FLASH, q, k, v, expected, 1);
    for (int first = 0; first < step; first++) {
        const int rows = (n - first + step - 1) / step;
        Matrix mine = matrix_new(rows, D), part = matrix_new(rows, D), out = matrix_new(rows, D);
        Matrix want = matrix_new(rows, D);
        float max[160], sum[160];
        for (int i = 0; i < rows; i++) {
            memcpy(&AT(mine, i, 0), &AT(q, first + i * step, 0), sizeof(float) * D);
            memcpy(&AT(want, i, 0), &AT(expected, first + i * step, 0), sizeof(float) * D);
        }
        cost_attend_part(mine, (CostPositions){ first, step }, k, v, (CostPositions){ 0, 1 },
                         COST_MASK_CAUSAL, part, max, sum, NULL, NULL);
        divide(part, sum, out);
        ck_assert_float_le(largest_difference(out, want), tolerance(v));
        matrix_free(&mine), matrix_free(&part), matrix_free(&out), matrix_free(&want);
    }
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&expected);
}
END_TEST

static void count_call(void *context)
{
    ++*(int *)context;
}

START_TEST(progress_is_called_after_every_pair_of_blocks)
{
    const int block = cost_kernel_at(cost_kernel_in_use()).block;
    const int nq = 2 * block + 1, nk = block + 5;
    Matrix q = random_matrix(nq, D, 14), k = random_matrix(nk, D, 15), v = random_matrix(nk, D, 16);
    Matrix out = matrix_new(nq, D);
    float *max = calloc((size_t)nq, sizeof *max), *sum = calloc((size_t)nq, sizeof *sum);
    int calls = 0;
    cost_attend_part(q, (CostPositions){ 0, 1 }, k, v, (CostPositions){ 0, 1 },
                     COST_MASK_CAUSAL, out, max, sum, count_call, &calls);
    ck_assert_int_eq(calls, 3 * 2);
    free(max), free(sum);
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&out);
}
END_TEST

START_TEST(a_row_that_sees_no_key_merges_without_nan)
{
    /* The striped layout's first step for rank 0 against rank 1's keys: query 0 sees none. */
    const int n = 40, ranks = 4;
    Matrix q = random_matrix(n, D, 17), k = random_matrix(n, D, 18), v = random_matrix(n, D, 19);
    const RingShare mine = ring_share(RING_STRIPED, n, ranks, 0);
    const RingShare theirs = ring_share(RING_STRIPED, n, ranks, 1);
    Matrix lq = matrix_new(mine.rows, D), lk = matrix_new(theirs.rows, D);
    Matrix lv = matrix_new(theirs.rows, D), out = matrix_new(mine.rows, D);
    ring_gather(q, mine, lq);
    ring_gather(k, theirs, lk);
    ring_gather(v, theirs, lv);
    RingState s = ring_state_new(mine.rows, D);
    ring_add_block(&s, lq, mine, lk, lv, theirs, true, NULL, NULL);
    ck_assert(s.max[0] == -INFINITY && s.sum[0] == 0.0f);
    ring_finish(&s, out);
    for (int c = 0; c < D; c++)
        ck_assert_float_eq(AT(out, 0, c), 0.0f);
    for (size_t i = 0; i < (size_t)mine.rows * D; i++)
        ck_assert(isfinite(out.data[i]));
    ring_state_free(&s);
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&lq);
    matrix_free(&lk), matrix_free(&lv), matrix_free(&out);
}
END_TEST

START_TEST(the_ring_in_one_process_is_flash_or_attend)
{
    const int n = 97;
    Matrix q = random_matrix(n, D, 20), k = random_matrix(n, D, 21), v = random_matrix(n, D, 22);
    Matrix flash = matrix_new(n, D), full = matrix_new(n, D), weights = matrix_new(n, n);
    Matrix out = matrix_new(n, D);
    cost_attend(COST_FLASH, q, k, v, flash, 1);
    attend(q, k, v, true, NULL, NULL, weights, full);
    for (int ranks = 1; ranks <= 4; ranks++)
        for (int layout = 0; layout < RING_LAYOUTS; layout++)
            for (int causal = 0; causal < 2; causal++) {
                matrix_fill(out, NAN);
                ring_reference(q, k, v, (RingLayout)layout, ranks, causal, out);
                ck_assert_float_le(largest_difference(out, causal ? flash : full),
                                   tolerance(v));
            }
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&flash);
    matrix_free(&full), matrix_free(&weights), matrix_free(&out);
}
END_TEST

START_TEST(heads_split_and_join_are_inverse)
{
    Matrix x = random_matrix(9, 4 * 6, 30), back = matrix_new(9, 4 * 6);
    float *blocks = malloc(sizeof(float) * 9 * 24);
    ring_heads_split(x, 4, blocks);
    /* Block j holds columns 6j to 6j + 5 of every row, rows one after the other. */
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 9; i++)
            for (int c = 0; c < 6; c++)
                ck_assert_float_eq(blocks[(j * 9 + i) * 6 + c], AT(x, i, j * 6 + c));
    ring_heads_join(blocks, 4, back);
    ck_assert_int_eq(memcmp(x.data, back.data, sizeof(float) * 9 * 24), 0);
    free(blocks);
    matrix_free(&x), matrix_free(&back);
}
END_TEST

/* Ulysses in one process: each rank's rows split by heads, the all-to-all done by copying
 * block j of rank s to rank j's place s, whole heads attended, and back the same way. */
static void ulysses_by_copying(Matrix q, Matrix k, Matrix v, int heads, int ranks,
                               bool causal, Matrix out)
{
    const int n = q.rows, rows = n / ranks, width = q.cols / ranks;
    const size_t block = (size_t)rows * width;
    float *sent = malloc(sizeof(float) * n * q.cols), *got = malloc(sizeof(float) * n * q.cols);
    Matrix in[4];
    const Matrix inputs[3] = { q, k, v };
    for (int x = 0; x < 4; x++)
        in[x] = matrix_new(n * ranks, width);       /* rank j's heads at rows j n .. */
    for (int x = 0; x < 3; x++)
        for (int s = 0; s < ranks; s++) {
            Matrix local = { rows, q.cols, inputs[x].data + (size_t)s * rows * q.cols };
            ring_heads_split(local, ranks, sent);
            for (int j = 0; j < ranks; j++)
                memcpy(in[x].data + (size_t)j * n * width + s * block, sent + j * block,
                       sizeof(float) * block);
        }
    for (int j = 0; j < ranks; j++) {
        Matrix h[4];
        for (int x = 0; x < 4; x++)
            h[x] = (Matrix){ n, width, in[x].data + (size_t)j * n * width };
        ring_attend_heads(h[0], h[1], h[2], heads / ranks, causal, h[3]);
        for (int s = 0; s < ranks; s++)
            memcpy(got + (size_t)s * ranks * block + j * block, h[3].data + s * block,
                   sizeof(float) * block);
    }
    for (int s = 0; s < ranks; s++) {
        Matrix local = { rows, q.cols, out.data + (size_t)s * rows * q.cols };
        ring_heads_join(got + (size_t)s * ranks * block, ranks, local);
    }
    for (int x = 0; x < 4; x++)
        matrix_free(&in[x]);
    free(sent), free(got);
}

START_TEST(ulysses_is_the_ring_head_by_head)
{
    const int n = 64, heads = 4, width = 32;
    Matrix q = random_matrix(n, heads * width, 31), k = random_matrix(n, heads * width, 32);
    Matrix v = random_matrix(n, heads * width, 33), out = matrix_new(n, heads * width);
    Matrix hq = matrix_new(n, width), hk = matrix_new(n, width), hv = matrix_new(n, width);
    Matrix ho = matrix_new(n, width), mine = matrix_new(n, width);
    for (int ranks = 1; ranks <= 4; ranks *= 2)
        for (int causal = 0; causal < 2; causal++) {
            matrix_fill(out, NAN);
            ulysses_by_copying(q, k, v, heads, ranks, causal, out);
            for (int h = 0; h < heads; h++) {
                ring_head(q, heads, h, hq);
                ring_head(k, heads, h, hk);
                ring_head(v, heads, h, hv);
                ring_head(out, heads, h, mine);
                ring_reference(hq, hk, hv, RING_PLAIN, ranks, causal, ho);
                ck_assert_float_le(largest_difference(mine, ho), tolerance(hv));
            }
        }
    matrix_free(&q), matrix_free(&k), matrix_free(&v), matrix_free(&out);
    matrix_free(&hq), matrix_free(&hk), matrix_free(&hv), matrix_free(&ho);
    matrix_free(&mine);
}
END_TEST

START_TEST(a_share_needs_two_rows_a_rank)
{
    ring_share(RING_ZIGZAG, 7, 4, 0);
}
END_TEST

START_TEST(the_block_kernel_refuses_a_width_its_tiles_do_not_cover)
{
    Matrix q = matrix_new(4, 33), out = matrix_new(4, 33);
    float max[4], sum[4];
    cost_attend_part(q, (CostPositions){ 0, 1 }, q, q, (CostPositions){ 0, 1 },
                     COST_MASK_NONE, out, max, sum, NULL, NULL);
}
END_TEST

Suite *ring_suite(void)
{
    Suite *suite = suite_create("ring");
    TCase *layouts = tcase_create("layouts");
    tcase_add_test(layouts, every_layout_covers_the_sequence_once);
    tcase_add_test(layouts, the_remainders_go_where_the_chapter_says);
    tcase_add_test(layouts, ranks_differ_by_at_most_one_row);
    tcase_add_test(layouts, scatter_undoes_gather);
    tcase_add_test(layouts, pairs_are_counted_as_a_loop_counts_them);
    tcase_add_test(layouts, the_balances_have_their_closed_forms);
    suite_add_tcase(suite, layouts);
    TCase *kernel = tcase_create("block kernel");
    tcase_add_test(kernel, the_block_kernel_without_a_mask_is_attend);
    tcase_add_test(kernel, the_causal_block_kernel_is_flash);
    tcase_add_test(kernel, two_halves_merged_are_the_whole);
    tcase_add_test(kernel, rows_spread_with_a_step_are_the_causal_rows);
    tcase_add_test(kernel, progress_is_called_after_every_pair_of_blocks);
    suite_add_tcase(suite, kernel);
    TCase *ring = tcase_create("ring");
    tcase_add_test(ring, a_row_that_sees_no_key_merges_without_nan);
    tcase_add_test(ring, the_ring_in_one_process_is_flash_or_attend);
    tcase_add_test(ring, heads_split_and_join_are_inverse);
    tcase_add_test(ring, ulysses_is_the_ring_head_by_head);
    suite_add_tcase(suite, ring);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, a_share_needs_two_rows_a_rank, SIGABRT);
    tcase_add_test_raise_signal(refused, the_block_kernel_refuses_a_width_its_tiles_do_not_cover,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
