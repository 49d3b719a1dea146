/* A caller compiled for other vectors than the library (the Makefile builds this file, on
 * x86-64, for plain SSE2 whatever the library's flags): the headers of the cost module must
 * describe one layout for both.  The online softmax gets buffers of exactly the size this file
 * computes from its own numbers, so that a library that assumed its own block would write past
 * them (the sanitizer run sees that); every kernel of the library runs through cost_attend.
 * The decode module's cache is laid out by the library alone: its size follows from the tile
 * the library reports, and a step over several tiles is the softmax computed here. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cost.h"
#include "decode.h"
#include "rng.h"

START_TEST(the_online_softmax_keeps_to_the_callers_layout)
{
    enum { KEYS = 5, QUERIES = 3 * COST_LANES + 1, STRIDE = QUERIES + 2 };
    float *scores = malloc((KEYS * STRIDE + 1) * sizeof *scores);
    float *original = malloc((KEYS * STRIDE + 1) * sizeof *original);
    float max[QUERIES], sum[QUERIES], rescale[QUERIES];
    ck_assert(scores != NULL && original != NULL);
    Rng rng;
    rng_seed(&rng, 90, 1);
    for (int e = 0; e <= KEYS * STRIDE; e++)
        scores[e] = original[e] = (float)rng_normal(&rng);
    for (int i = 0; i < QUERIES; i++) {
        max[i] = -INFINITY;
        sum[i] = 0.0f;
    }
    cost_online_softmax(scores, KEYS, QUERIES, STRIDE, max, sum, rescale, true);
    for (int i = 0; i < QUERIES; i++) {
        double m = -INFINITY, total = 0.0;
        for (int j = 0; j < KEYS; j++)
            m = fmax(m, original[j * STRIDE + i]);
        for (int j = 0; j < KEYS; j++) {
            const double w = exp(original[j * STRIDE + i] - (float)m);
            ck_assert_double_le(fabs(scores[j * STRIDE + i] - w), 1e-6 * w);
            total += w;
        }
        ck_assert(max[i] == (float)m && rescale[i] == 0.0f);
        ck_assert_double_le(fabs(sum[i] - total), 2e-6 * total);
    }
    for (int j = 0; j < KEYS; j++)
        for (int i = QUERIES; i < STRIDE; i++)
            ck_assert(memcmp(&scores[j * STRIDE + i], &original[j * STRIDE + i],
                             sizeof(float)) == 0);
    ck_assert(memcmp(&scores[KEYS * STRIDE], &original[KEYS * STRIDE], sizeof(float)) == 0);
    free(scores);
    free(original);
}
END_TEST

/* Every kernel of the library against its naive head, called from this file. */
START_TEST(every_kernel_of_the_library_serves_this_caller)
{
    const int n = 77, d = 32;
    Rng rng;
    rng_seed(&rng, 91, 1);
    Matrix q = matrix_new(n, d), k = matrix_new(n, d), v = matrix_new(n, d);
    Matrix naive = matrix_new(n, d), out = matrix_new(n, d);
    matrix_fill_normal(q, &rng, 1.0f);
    matrix_fill_normal(k, &rng, 1.0f);
    matrix_fill_normal(v, &rng, 1.0f);
    cost_attend(COST_NAIVE, q, k, v, naive, 1);
    for (int i = 0; i < cost_kernel_count(); i++) {
        cost_kernel_use(i);
        cost_attend(COST_FLASH, q, k, v, out, 2);
        for (size_t e = 0; e < (size_t)n * d; e++)
            ck_assert_msg(fabs(out.data[e] - naive.data[e]) <= 1e-5, "kernel %d", i);
    }
    cost_kernel_use(-1);
    matrix_free(&q);
    matrix_free(&k);
    matrix_free(&v);
    matrix_free(&naive);
    matrix_free(&out);
}
END_TEST

/* A cache of several tiles and a short last one, read by the library for this caller. */
START_TEST(the_cache_is_laid_out_by_the_library)
{
    enum { HEADS = 2, WIDTH = 16 };
    const int tile = decode_tile_slots(), positions = 3 * tile + 5;
    const int tiles = (positions + tile - 1) / tile;
    KvCache c = decode_cache_new(HEADS, HEADS, WIDTH, positions, false);
    ck_assert_uint_eq(decode_cache_bytes(&c),
                      (size_t)2 * HEADS * WIDTH * tiles * tile * sizeof(float));
    float *keys = malloc((size_t)positions * HEADS * WIDTH * sizeof *keys);
    float *values = malloc((size_t)positions * HEADS * WIDTH * sizeof *values);
    float query[HEADS * WIDTH], out[HEADS * WIDTH];
    ck_assert(keys != NULL && values != NULL);
    Rng rng;
    rng_seed(&rng, 92, 1);
    for (int e = 0; e < positions * HEADS * WIDTH; e++) {
        keys[e] = (float)rng_normal(&rng);
        values[e] = (float)rng_normal(&rng);
    }
    for (int e = 0; e < HEADS * WIDTH; e++)
        query[e] = (float)rng_normal(&rng);
    for (int p = 0; p < positions; p++)
        decode_cache_append(&c, keys + (size_t)p * HEADS * WIDTH,
                            values + (size_t)p * HEADS * WIDTH);
    decode_attend(&c, query, out);
    for (int h = 0; h < HEADS; h++) {
        double score[4 * 64 + 5], top = -INFINITY, total = 0.0;
        ck_assert_int_le(positions, 4 * 64 + 5);
        for (int p = 0; p < positions; p++) {
            score[p] = 0.0;
            for (int k = 0; k < WIDTH; k++)
                score[p] += (double)query[h * WIDTH + k] * keys[(p * HEADS + h) * WIDTH + k];
            score[p] /= sqrt((double)WIDTH);
            top = fmax(top, score[p]);
        }
        for (int p = 0; p < positions; p++)
            total += exp(score[p] - top);
        for (int k = 0; k < WIDTH; k++) {
            double mixed = 0.0;
            for (int p = 0; p < positions; p++)
                mixed += exp(score[p] - top) / total * values[(p * HEADS + h) * WIDTH + k];
            ck_assert_double_le(fabs(out[h * WIDTH + k] - mixed), 1e-5);
        }
    }
    decode_cache_free(&c);
    free(keys);
    free(values);
}
END_TEST

Suite *otherflags_suite(void)
{
    Suite *suite = suite_create("otherflags");
    TCase *layout = tcase_create("layout");
    tcase_add_test(layout, the_online_softmax_keeps_to_the_callers_layout);
    tcase_add_test(layout, every_kernel_of_the_library_serves_this_caller);
    tcase_add_test(layout, the_cache_is_laid_out_by_the_library);
    suite_add_tcase(suite, layout);
    return suite;
}
