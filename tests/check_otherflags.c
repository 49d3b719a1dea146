/* A caller compiled for other vectors than the library (the Makefile builds this file, on
 * x86-64, for plain SSE2 whatever the library's flags): the headers of the cost module must
 * describe one layout for both.  The online softmax gets buffers of exactly the size this file
 * computes from its own numbers, so that a library that assumed its own block would write past
 * them (the sanitizer run sees that); every kernel of the library runs through cost_attend. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cost.h"
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

Suite *otherflags_suite(void)
{
    Suite *suite = suite_create("otherflags");
    TCase *layout = tcase_create("layout");
    tcase_add_test(layout, the_online_softmax_keeps_to_the_callers_layout);
    tcase_add_test(layout, every_kernel_of_the_library_serves_this_caller);
    suite_add_tcase(suite, layout);
    return suite;
}
