/* Tests of the cost module (chapter 7): every variant against a causal head computed in double
 * precision and against the naive head, on sizes that are not multiples of the tiles; the
 * online softmax update; the vectorised exponential; the FMA chains of the peak measurement;
 * the FLOP count, the memory each variant reports, and the names of the variants; the loop
 * orders of a matrix product. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cost.h"
#include "lab.h"
#include "rng.h"
#include "reference.h"
#include "refusal.h"

/* The causal head written the obvious way, in double precision. */
static void reference_head(Matrix q, Matrix k, Matrix v, double *out)
{
    const int n = q.rows, d = q.cols;
    double *s = memory_alloc((size_t)n, sizeof *s);
    for (int i = 0; i < n; i++) {
        double max = -INFINITY, total = 0.0;
        for (int j = 0; j <= i; j++) {
            double dot = 0.0;
            for (int p = 0; p < d; p++)
                dot += (double)AT(q, i, p) * AT(k, j, p);
            s[j] = dot / sqrt((double)d);
            max = fmax(max, s[j]);
        }
        for (int j = 0; j <= i; j++)
            total += s[j] = exp(s[j] - max);
        for (int c = 0; c < d; c++) {
            double sum = 0.0;
            for (int j = 0; j <= i; j++)
                sum += s[j] * AT(v, j, c);
            out[(size_t)i * d + c] = sum / total;
        }
    }
    free(s);
}

static void random_matrices(int n, int d, uint64_t seed, Matrix *q, Matrix *k, Matrix *v)
{
    Rng rng;
    rng_seed(&rng, seed, 3);
    *q = matrix_new(n, d);
    *k = matrix_new(n, d);
    *v = matrix_new(n, d);
    matrix_fill_normal(*q, &rng, 1.0f);
    matrix_fill_normal(*k, &rng, 1.0f);
    matrix_fill_normal(*v, &rng, 1.0f);
}

static void free_matrices(Matrix *q, Matrix *k, Matrix *v)
{
    matrix_free(q);
    matrix_free(k);
    matrix_free(v);
}

/* Runs every variant that supports d (the threaded ones on 1 and 3 threads) and compares it with
 * the double-precision head and with the naive head. */
static void check_every_variant(int n, int d, uint64_t seed)
{
    Matrix q, k, v;
    random_matrices(n, d, seed, &q, &k, &v);
    double *expected = memory_alloc((size_t)n * d, sizeof *expected);
    reference_head(q, k, v, expected);
    Matrix naive = matrix_new(n, d), out = matrix_new(n, d);
    cost_attend(COST_NAIVE, q, k, v, naive, 1);
    for (int variant = 0; variant < COST_VARIANTS; variant++) {
        if (!cost_variant_supports((CostVariant)variant, d))
            continue;
        for (int threads = 1; threads <= 3; threads += 2) {
            matrix_fill(out, NAN);
            cost_attend((CostVariant)variant, q, k, v, out, threads);
            for (size_t e = 0; e < (size_t)n * d; e++) {
                ck_assert_msg(fabs(out.data[e] - expected[e]) <= 1e-5,
                              "%s, n %d, d %d, %d threads: entry %zu is %g, expected %g",
                              cost_variant_names[variant], n, d, threads, e, out.data[e],
                              expected[e]);
                ck_assert_msg(fabs(out.data[e] - naive.data[e]) <= 1e-5,
                              "%s, n %d, d %d: entry %zu differs from the naive head",
                              cost_variant_names[variant], n, d, e);
            }
        }
    }
    free(expected);
    matrix_free(&naive);
    matrix_free(&out);
    free_matrices(&q, &k, &v);
}

START_TEST(every_variant_matches_the_reference_on_sizes_that_are_not_multiples_of_a_tile)
{
    const int sizes[] = { 1, 2, 7, 63, 64, 65, 129, 200 };
    for (int s = 0; s < 8; s++)
        check_every_variant(sizes[s], 32, 10 + (uint64_t)s);
    check_every_variant(70, 96, 20);
    check_every_variant(131, 128, 21);
}
END_TEST

START_TEST(naive_and_causal_accept_any_width)
{
    check_every_variant(1, 1, 30);
    check_every_variant(45, 5, 31);
}
END_TEST

START_TEST(flash_gives_the_same_bits_on_any_number_of_threads)
{
    const int n = 300, d = 64;
    Matrix q, k, v;
    random_matrices(n, d, 40, &q, &k, &v);
    Matrix one = matrix_new(n, d), many = matrix_new(n, d);
    cost_attend(COST_VEXP, q, k, v, one, 1);
    for (int s = 0; s < COST_SCHEDULES; s++) {
        cost_schedule_use((CostSchedule)s);
        for (int threads = 1; threads <= 4; threads++) {
            memset(many.data, 0, (size_t)n * d * sizeof(float));
            cost_attend(COST_FLASH, q, k, v, many, threads);
            ck_assert_msg(memcmp(one.data, many.data, (size_t)n * d * sizeof(float)) == 0,
                          "schedule %s, %d threads", cost_schedule_names[s], threads);
            memset(many.data, 0, (size_t)n * d * sizeof(float));
            cost_attend(COST_STATIC, q, k, v, many, threads);
            ck_assert(memcmp(one.data, many.data, (size_t)n * d * sizeof(float)) == 0);
        }
    }
    cost_schedule_use(COST_SCHEDULE_DYNAMIC);
    matrix_free(&one);
    matrix_free(&many);
    free_matrices(&q, &k, &v);
}
END_TEST

START_TEST(flash_does_not_leak_the_future)
{
    const int n = 200, d = 32, changed = 150;
    Matrix q, k, v;
    random_matrices(n, d, 50, &q, &k, &v);
    Matrix before = matrix_new(n, d), after = matrix_new(n, d);
    cost_attend(COST_FLASH, q, k, v, before, 2);
    for (int p = 0; p < d; p++) {
        AT(k, changed, p) += 1.0f;
        AT(v, changed, p) -= 2.0f;
    }
    cost_attend(COST_FLASH, q, k, v, after, 2);
    for (int i = 0; i < n; i++) {
        const bool same = memcmp(&AT(before, i, 0), &AT(after, i, 0), d * sizeof(float)) == 0;
        ck_assert_msg(same == (i < changed), "row %d", i);
    }
    matrix_free(&before);
    matrix_free(&after);
    free_matrices(&q, &k, &v);
}
END_TEST

/* Two blocks of scores through the online update must give the softmax of both together.  Block
 * one has 41 keys, an odd count, and its last key holds query 3's largest score, so that a
 * maximum that missed the odd key out would show; block two has 64.  Query 5 sees nothing in
 * block one, query 9 nothing in either.  The rows are STRIDE floats apart, more than the QUERIES
 * queries, which are not a whole number of vectors; the floats between stay untouched. */
enum { QUERIES = 61, STRIDE = 67 };
static void fill_two_blocks(float *first, float *second)
{
    Rng rng;
    rng_seed(&rng, 60, 1);
    for (int e = 0; e < 41 * STRIDE; e++)
        first[e] = (float)(3.0 * rng_normal(&rng));
    first[40 * STRIDE + 3] = 30.0f;
    for (int e = 0; e < 64 * STRIDE; e++)
        second[e] = (float)(3.0 * rng_normal(&rng) + 2.0);
    for (int j = 0; j < 41; j++)
        first[j * STRIDE + 5] = first[j * STRIDE + 9] = -INFINITY;
    for (int j = 0; j < 64; j++) {
        second[j * STRIDE + 9] = -INFINITY;
        if (j % 3 == 0)
            second[j * STRIDE + 20] = -INFINITY;
    }
}

static void check_two_blocks(bool fast_exp)
{
    static float first[41 * STRIDE], second[64 * STRIDE];
    static float original_first[41 * STRIDE], original_second[64 * STRIDE];
    float max[QUERIES], sum[QUERIES], rescale[QUERIES], first_max[QUERIES];
    fill_two_blocks(first, second);
    memcpy(original_first, first, sizeof first);
    memcpy(original_second, second, sizeof second);
    for (int i = 0; i < QUERIES; i++) {
        max[i] = -INFINITY;
        sum[i] = 0.0f;
    }
    cost_online_softmax(first, 41, QUERIES, STRIDE, max, sum, rescale, fast_exp);
    memcpy(first_max, max, sizeof max);
    cost_online_softmax(second, 64, QUERIES, STRIDE, max, sum, rescale, fast_exp);
    for (int j = 0; j < 64; j++)
        for (int i = QUERIES; i < STRIDE; i++)
            ck_assert(memcmp(&second[j * STRIDE + i], &original_second[j * STRIDE + i],
                             sizeof(float)) == 0 && (j >= 41 || memcmp(&first[j * STRIDE + i],
                             &original_first[j * STRIDE + i], sizeof(float)) == 0));
    for (int i = 0; i < QUERIES; i++) {
        double first_m = -INFINITY, m, total = 0.0;
        for (int j = 0; j < 41; j++)
            first_m = fmax(first_m, original_first[j * STRIDE + i]);
        m = first_m;
        for (int j = 0; j < 64; j++)
            m = fmax(m, original_second[j * STRIDE + i]);
        ck_assert(first_max[i] == (float)first_m && max[i] == (float)m);
        for (int j = 0; j < 41; j++) {
            /* the exponent is a float difference, rounded as the kernel rounds it */
            const double w = first_m == -INFINITY ? 0.0 : exp(original_first[j * STRIDE + i]
                                                              - (float)first_m);
            ck_assert_double_le(fabs(first[j * STRIDE + i] - w), 1e-6 * w);
            total += first_m == -INFINITY ? 0.0 : exp(original_first[j * STRIDE + i] - m);
        }
        for (int j = 0; j < 64; j++) {
            const double w = m == -INFINITY ? 0.0
                                            : exp(original_second[j * STRIDE + i] - (float)m);
            ck_assert_double_le(fabs(second[j * STRIDE + i] - w), 1e-6 * w);
            total += w;
        }
        const double alpha = first_m == -INFINITY ? 0.0 : exp(first_m - m);
        ck_assert_double_le(fabs(rescale[i] - alpha), 1e-6 * alpha);
        ck_assert_double_le(fabs(sum[i] - total), 2e-6 * total);
        ck_assert(i != 9 || (max[i] == -INFINITY && sum[i] == 0.0f));
    }
}

START_TEST(online_softmax_of_two_blocks_is_the_softmax_of_both)
{
    check_two_blocks(false);
    check_two_blocks(true);
}
END_TEST

START_TEST(vector_exp_is_accurate_on_the_range_a_softmax_uses)
{
    enum { N = 100003 };
    static float x[N], y[N];
    for (int e = 0; e < N; e++)
        x[e] = (float)(-87.0 * e / (N - 1));
    cost_exp(x, y, N);
    for (int e = 0; e < N; e++) {
        const double exact = exp((double)x[e]);
        ck_assert_msg(fabs(y[e] - exact) <= 4e-7 * exact, "exp(%g) = %g", x[e], y[e]);
    }
    const float special[4] = { 0.0f, -INFINITY, -100.0f, -1.0f };
    float result[4];
    cost_exp(special, result, 4);
    ck_assert(result[0] == 1.0f && result[1] == 0.0f && result[2] == 0.0f);
    ck_assert_float_eq_tol(result[3], (float)exp(-1.0), 1e-7f);
    const float large[3] = { 88.0f, 88.3f, 1000.0f };
    cost_exp(large, result, 3);
    ck_assert(fabs(result[0] - exp(88.0)) <= 4e-7 * exp(88.0));
    ck_assert(isfinite(result[2]) && result[2] == result[1]);
    const float not_a_number = NAN;
    cost_exp(&not_a_number, result, 1);
    ck_assert(isnan(result[0]));
}
END_TEST

START_TEST(fma_chains_equal_their_closed_form)
{
    /* x <- x m + a from x0 = start + lane: after s steps x = m^s x0 + a (1 - m^s) / (1 - m). */
    const int lanes = COST_CHAINS * COST_LANES, steps = 30;
    double expected = 0.0;
    for (int l = 0; l < lanes; l++)
        expected += pow(0.5, steps) * (3.0 + l) + (1.0 - pow(0.5, steps)) / 0.5;
    ck_assert_double_eq_tol(cost_fma_chains(steps, 0.5f, 1.0f, 3.0f), expected, 1e-4);
    /* With m = 1 every lane adds a exactly: x = x0 + s a. */
    expected = 0.0;
    for (int l = 0; l < lanes; l++)
        expected += l + 100 * 0.25;
    ck_assert_double_eq(cost_fma_chains(100, 1.0f, 0.25f, 0.0f), expected);
}
END_TEST

START_TEST(the_flop_count_is_the_lower_triangle)
{
    const int sizes[][2] = { { 1, 1 }, { 1, 128 }, { 7, 3 }, { 100, 64 } };
    for (int s = 0; s < 4; s++) {
        double count = 0.0;
        for (int i = 0; i < sizes[s][0]; i++)
            for (int j = 0; j <= i; j++)
                count += 2.0 * 2.0 * sizes[s][1];     /* q.k and the value row, d each */
        ck_assert_double_eq(cost_causal_flops(sizes[s][0], sizes[s][1]), count);
    }
}
END_TEST

START_TEST(only_the_naive_memory_grows_as_n_squared)
{
    ck_assert_uint_eq(cost_extra_bytes(COST_NAIVE, 2000, 128, 1),
                      4 * cost_extra_bytes(COST_NAIVE, 1000, 128, 1));
    ck_assert_uint_eq(cost_extra_bytes(COST_NAIVE, 1000, 128, 1), 1000u * 1000u * sizeof(float));
    ck_assert_uint_eq(cost_extra_bytes(COST_FLASH, 100, 128, 2),
                      cost_extra_bytes(COST_FLASH, 100000, 128, 2));
    ck_assert_uint_eq(cost_extra_bytes(COST_FLASH, 100, 128, 2),
                      2 * cost_extra_bytes(COST_VEXP, 100, 128, 1));
    ck_assert_uint_lt(cost_extra_bytes(COST_TILED, 65536, 128, 1),
                      cost_extra_bytes(COST_NAIVE, 65536, 128, 1) / 500);
}
END_TEST

START_TEST(variants_are_found_by_name_and_refuse_widths_they_cannot_tile)
{
    for (int v = 0; v < COST_VARIANTS; v++)
        ck_assert_int_eq(cost_variant_find(cost_variant_names[v]), v);
    ck_assert_int_eq(cost_variant_find("fast"), COST_VARIANTS);
    ck_assert(cost_variant_supports(COST_NAIVE, 5) && cost_variant_supports(COST_CAUSAL, 1));
    ck_assert(!cost_variant_supports(COST_FLASH, 48) && !cost_variant_supports(COST_TILED, 0));
    ck_assert(cost_variant_supports(COST_FLASH, 32) && cost_variant_supports(COST_ONLINE, 128));
}
END_TEST

START_TEST(the_bandwidth_sum_counts_every_element_once)
{
    const size_t counts[] = { 0, 1, 15, 16, 17, 1000, 4099 };
    float *x = memory_alloc(4099, sizeof *x);
    for (size_t e = 0; e < 4099; e++)
        x[e] = (float)(e % 7);
    for (int c = 0; c < 7; c++)
        for (int threads = 1; threads <= 3; threads++) {
            double expected = 0.0;
            for (size_t e = 0; e < counts[c]; e++)
                expected += x[e];
            ck_assert_double_eq(cost_sum(x, counts[c], threads), expected);
        }
    free(x);
}
END_TEST

/* The measure of the bandwidth: a small array asks for no huge pages and says nothing of them;
 * one of 64 MiB asks, and its share is a share (or unknown); the sentences follow the flags. */
START_TEST(the_bandwidth_measure_says_what_it_found)
{
    const CostBandwidth small = cost_bandwidth(2, 1 << 20);
    ck_assert(!small.huge_asked && small.one > 0.0 && small.all > 0.0);
    ck_assert(small.still_below ? small.measured_again : true);
    const CostBandwidth large = cost_bandwidth(1, (size_t)64 << 20);
    ck_assert(large.huge_asked && !large.measured_again);
    ck_assert(large.huge_share == -1.0 || (large.huge_share >= 0.0 && large.huge_share <= 1.0));
    const struct { CostBandwidth b; const char *says; } cases[] = {
        { { 10, 20, true, 0.5, false, false }, "Only 50\\,\\% of the array" },
        { { 10, 20, true, -1.0, false, false }, "does not say" },
        { { 10, 5, false, 1.0, true, true }, "still did when measured again" },
        { { 10, 20, false, 1.0, true, false }, "measured again, they did not" },
        { { 10, 20, true, 1.0, false, false }, NULL },
    };
    for (int c = 0; c < 5; c++) {
        char text[512] = { 0 };
        FILE *out = fmemopen(text, sizeof text - 1, "w");
        cost_bandwidth_say(out, cases[c].b);
        fclose(out);
        if (cases[c].says != NULL)
            ck_assert_ptr_nonnull(strstr(text, cases[c].says));
        else
            ck_assert_str_eq(text, "%\n");
    }
}
END_TEST

/* The bound of the schedule against a slow, obvious one: every way of splitting blocks
 * 0..blocks-1 between two threads, the best of which largest-first must find for costs b + 1. */
START_TEST(the_schedule_bound_matches_an_exhaustive_split_on_two_threads)
{
    for (int blocks = 1; blocks <= 12; blocks++) {
        double work = blocks * (blocks + 1) / 2.0, best = work;
        for (unsigned set = 0; set < 1u << blocks; set++) {
            double one = 0.0;
            for (int b = 0; b < blocks; b++)
                if (set & (1u << b))
                    one += b + 1.0;
            best = fmin(best, fmax(one, work - one));
        }
        ck_assert_double_eq_tol(cost_schedule_speedup(blocks, 2), work / best, 1e-12);
    }
    ck_assert_double_eq_tol(cost_schedule_speedup(64, 64), 2080.0 / 64.0, 1e-12);
    ck_assert_double_eq_tol(cost_schedule_speedup(64, 1), 1.0, 1e-12);
}
END_TEST

/* The profile makes flash's calls in flash's order: the same bits, and its parts' FLOPs add up
 * to the count of the whole head. */
START_TEST(the_profile_of_flash_gives_its_bits_and_counts_every_flop_once)
{
    const int sizes[3] = { 1, 130, 200 };
    for (int s = 0; s < 3; s++) {
        const int n = sizes[s], d = 64;
        Matrix q, k, v;
        random_matrices(n, d, 50 + (uint64_t)s, &q, &k, &v);
        Matrix plain = matrix_new(n, d), profiled = matrix_new(n, d);
        double seconds[COST_PARTS], flops[COST_PARTS], work = 0.0;
        cost_attend(COST_FLASH, q, k, v, plain, 1);
        cost_flash_profile(q, k, v, profiled, seconds, flops);
        ck_assert(memcmp(plain.data, profiled.data, (size_t)n * d * sizeof(float)) == 0);
        for (int part = 0; part < COST_PARTS; part++) {
            ck_assert(seconds[part] >= 0.0 && flops[part] >= 0.0);
            work += flops[part];
        }
        ck_assert_double_eq(work, cost_causal_flops(n, d));
        ck_assert(strcmp(cost_part_names[COST_PART_DIAGONAL], "diagonal") == 0);
        matrix_free(&plain);
        matrix_free(&profiled);
        free_matrices(&q, &k, &v);
    }
}
END_TEST

/* The traffic model against a count block by block, and flash's intensity against the closed
 * form (NB + 1) / (2 (N + 3)) of the text when n = N B. */
START_TEST(the_traffic_model_matches_a_count_and_the_closed_form)
{
    const int d = 128, block = cost_kernel_at(cost_kernel_in_use()).block;
    for (int n = 1; n <= 700; n += 37) {
        double flash = 2.0 * n * d, tiled = 2.0 * n * d;
        for (int b = 0; b * block < n; b++)
            for (int c = 0; c <= b; c++) {
                flash += 2.0 * block * d;
                tiled += 2.0 * block * d + 2.0 * block * block;
            }
        ck_assert_double_eq(cost_traffic_bytes(COST_FLASH, n, d), 4.0 * flash);
        ck_assert_double_eq(cost_traffic_bytes(COST_VEXP, n, d), 4.0 * flash);
        ck_assert_double_eq(cost_traffic_bytes(COST_TILED, n, d), 4.0 * tiled);
        ck_assert_double_eq(cost_traffic_bytes(COST_NAIVE, n, d),
                            4.0 * ((double)n * n * (2 * d + 2) + 2.0 * n * d));
    }
    for (int blocks = 1; blocks <= 64; blocks *= 2) {
        const int n = blocks * block;
        const double intensity = cost_causal_flops(n, d) / cost_traffic_bytes(COST_FLASH, n, d);
        ck_assert_double_eq_tol(intensity, (n + 1.0) / (2.0 * (blocks + 3)), 1e-12);
    }
}
END_TEST

/* flash tiles 32 columns at a time: a width of 48 would read and write past the rows. */
START_TEST(cost_attend_refuses_a_width_its_tiles_do_not_cover)
{
    Matrix q = matrix_new(70, 48), out = matrix_new(70, 48);
    cost_attend(COST_FLASH, q, q, q, out, 1);
    matrix_free(&q);
    matrix_free(&out);
}
END_TEST

START_TEST(cost_attend_refuses_an_output_of_the_wrong_shape)
{
    Matrix q = matrix_new(70, 32), out = matrix_new(69, 32);
    cost_attend(COST_NAIVE, q, q, q, out, 1);
    matrix_free(&q);
    matrix_free(&out);
}
END_TEST

START_TEST(the_profile_refuses_a_width_its_tiles_do_not_cover)
{
    Matrix q = matrix_new(70, 48), out = matrix_new(70, 48);
    double seconds[COST_PARTS], flops[COST_PARTS];
    cost_flash_profile(q, q, q, out, seconds, flops);
    matrix_free(&q);
    matrix_free(&out);
}
END_TEST

/* The i,j,p products of the loop-order experiment: the one-sum version adds the products of
 * C_ij in the order p = 0, 1, ..., as matrix_multiply does, so the two agree bit for bit; the
 * four-sum version agrees with a product in double precision, on shapes whose inner size is
 * not a multiple of four, so that its tail runs too. */
START_TEST(the_loop_orders_compute_the_same_product)
{
    const int shapes[][3] = { { 13, 37, 11 }, { 5, 3, 7 }, { 1, 1, 1 }, { 16, 64, 16 } };
    for (int s = 0; s < 4; s++) {
        const int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        Rng rng;
        rng_seed(&rng, 20 + (unsigned)s, 1);
        Matrix a = matrix_new_normal(m, k, &rng, 1.0f), b = matrix_new_normal(k, n, &rng, 1.0f);
        Matrix ipj = matrix_new(m, n), one = matrix_new(m, n), four = matrix_new(m, n);
        matrix_multiply(a, b, ipj);
        cost_multiply_ijp(a, b, one);
        cost_multiply_ijp_four_sums(a, b, four);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double size;
                const double exact = reference_entry(a, b, i, j, &size);
                ck_assert(AT(one, i, j) == AT(ipj, i, j));
                ck_assert_double_eq_tol(AT(four, i, j), exact, 1e-6 * k * size + 1e-30);
            }
        matrix_free(&a);
        matrix_free(&b);
        matrix_free(&ipj);
        matrix_free(&one);
        matrix_free(&four);
    }
}
END_TEST

/* The four sums group the products as (p0 + p1) + (p2 + p3), one sum as ((p0 + p1) + p2) + p3:
 * with 1e8, 1, -1e8, 1 (floats are 8 apart near 1e8) the first gives 0, the second 1. */
START_TEST(four_sums_group_the_products_in_another_order)
{
    Matrix a = matrix_new(1, 4), b = matrix_new(4, 1), c = matrix_new(1, 1);
    const float row[4] = { 1e8f, 1.0f, -1e8f, 1.0f };
    for (int p = 0; p < 4; p++) {
        AT(a, 0, p) = row[p];
        AT(b, p, 0) = 1.0f;
    }
    cost_multiply_ijp(a, b, c);
    ck_assert(AT(c, 0, 0) == 1.0f);
    cost_multiply_ijp_four_sums(a, b, c);
    ck_assert(AT(c, 0, 0) == 0.0f);
    matrix_free(&a);
    matrix_free(&b);
    matrix_free(&c);
}
END_TEST

START_TEST(the_loop_orders_refuse_shapes_that_do_not_chain)
{
    Matrix a = matrix_new(2, 3), b = matrix_new(4, 2), c = matrix_new(2, 2);
    if (_i == 0)
        cost_multiply_ijp(a, b, c);
    else
        cost_multiply_ijp_four_sums(a, b, c);
    matrix_free(&a);
    matrix_free(&b);
    matrix_free(&c);
}
END_TEST

/* The variants whose tiles a kernel sets, against the double-precision head. */
static void check_the_tiled_variants(int n, int d, uint64_t seed)
{
    const CostVariant tiled[3] = { COST_TILED, COST_ONLINE, COST_FLASH };
    Matrix q, k, v;
    random_matrices(n, d, seed, &q, &k, &v);
    double *expected = memory_alloc((size_t)n * d, sizeof *expected);
    reference_head(q, k, v, expected);
    Matrix out = matrix_new(n, d);
    for (int t = 0; t < 3; t++) {
        matrix_fill(out, NAN);
        cost_attend(tiled[t], q, k, v, out, 2);
        for (size_t e = 0; e < (size_t)n * d; e++)
            ck_assert_msg(fabs(out.data[e] - expected[e]) <= 1e-5, "%s, kernel %d: entry %zu",
                          cost_variant_names[tiled[t]], cost_kernel_in_use(), e);
    }
    free(expected);
    matrix_free(&out);
    free_matrices(&q, &k, &v);
}

/* Every kernel compiled in, not only the one in use, against the double-precision head and the
 * naive head, on sizes around its blocks. */
START_TEST(every_kernel_matches_the_reference)
{
    const int count = cost_kernel_count();
    ck_assert_int_ge(count, 1);
    for (int i = 0; i < count; i++) {
        const CostKernel c = cost_kernel_at(i);
        ck_assert(c.block >= 1 && c.block <= 128 && c.block % c.score_rows == 0);
        ck_assert(c.block % (c.score_vectors * COST_LANES) == 0);
        ck_assert(c.block % (c.output_vectors * COST_LANES) == 0 && 32 % c.output_rows == 0);
        cost_kernel_use(i);
        ck_assert_int_eq(cost_kernel_in_use(), i);
        check_the_tiled_variants(c.block + 5, 32, 70 + (uint64_t)i);
        check_the_tiled_variants(2 * c.block - 3, 64, 170 + (uint64_t)i);
    }
    cost_kernel_use(-1);
    ck_assert_int_eq(cost_kernel_in_use(), cost_kernel_rule());
}
END_TEST

/* The rule's kernel is the one section "Tiles" names: with 32 registers 8 by 2 for both tiles and
 * B = 64, with 16 registers 6 by 2 and 4 by 3 and B = 48. */
START_TEST(the_rule_is_the_kernel_the_text_names)
{
    const CostKernel rule = cost_kernel_at(cost_kernel_rule());
    if (COST_REGISTERS == 32)
        ck_assert(rule.block == 64 && rule.score_rows == 8 && rule.score_vectors == 2
                  && rule.output_rows == 8 && rule.output_vectors == 2);
    else
        ck_assert(rule.block == 48 && rule.score_rows == 6 && rule.score_vectors == 2
                  && rule.output_rows == 4 && rule.output_vectors == 3);
}
END_TEST

/* Under a fixed kernel, flash gives the same bits run after run: a fixed plan, identical files. */
START_TEST(a_fixed_kernel_gives_the_same_bits_every_run)
{
    const int n = 150, d = 64;
    Matrix q, k, v;
    random_matrices(n, d, 81, &q, &k, &v);
    Matrix first = matrix_new(n, d), again = matrix_new(n, d);
    for (int i = 0; i < cost_kernel_count(); i++) {
        cost_kernel_use(i);
        cost_attend(COST_FLASH, q, k, v, first, 2);
        cost_attend(COST_FLASH, q, k, v, again, 2);
        ck_assert(memcmp(first.data, again.data, (size_t)n * d * sizeof(float)) == 0);
    }
    cost_kernel_use(-1);
    matrix_free(&first);
    matrix_free(&again);
    free_matrices(&q, &k, &v);
}
END_TEST

/* The planner times every kernel and names the fastest, leaving the kernel in use as it was. */
START_TEST(the_planner_names_the_fastest_kernel_it_timed)
{
    Matrix q, k, v;
    random_matrices(100, 32, 80, &q, &k, &v);
    double ms[128];
    const int count = cost_kernel_count(), best = cost_plan_measure(q, k, v, 1, 60.0, ms);
    ck_assert(count <= 128 && best >= 0 && best < count);
    for (int i = 0; i < count; i++)
        ck_assert(isfinite(ms[i]) && ms[i] > 0.0 && ms[best] <= ms[i]);
    ck_assert_int_eq(cost_kernel_in_use(), cost_kernel_rule());
    free_matrices(&q, &k, &v);
}
END_TEST

/* The schedule's planner times every schedule on several threads and names the fastest; on one
 * thread it times nothing and keeps the dynamic schedule.  The schedule in use stays as it was. */
START_TEST(the_planner_names_the_fastest_schedule_it_timed)
{
    Matrix q, k, v;
    random_matrices(200, 32, 81, &q, &k, &v);
    double ms[COST_SCHEDULES];
    cost_schedule_use(COST_SCHEDULE_CYCLIC);
    const CostSchedule best = cost_plan_schedule(q, k, v, 3, 2, 60.0, ms);
    for (int s = 0; s < COST_SCHEDULES; s++)
        ck_assert(isfinite(ms[s]) && ms[s] > 0.0 && ms[best] <= ms[s]);
    ck_assert_int_eq(cost_schedule_in_use(), COST_SCHEDULE_CYCLIC);
    ck_assert_int_eq(cost_plan_schedule(q, k, v, 1, 2, 60.0, ms), COST_SCHEDULE_DYNAMIC);
    for (int s = 0; s < COST_SCHEDULES; s++)
        ck_assert(isnan(ms[s]));
    cost_schedule_use(COST_SCHEDULE_DYNAMIC);
    free_matrices(&q, &k, &v);
}
END_TEST

static void write_text(const char *path, const char *text, size_t length)
{
    FILE *file = fopen(path, "w");
    ck_assert(file != NULL);
    fwrite(text, 1, length, file);
    fclose(file);
}

/* A saved plan loads back whole, the schedule and a time not taken (NaN) included; a plan whose
 * key differs, or that ends early, is no plan. */
START_TEST(a_plan_loads_back_only_under_its_own_key)
{
    char path[] = "/tmp/check-cost-plan-XXXXXX";
    const int descriptor = mkstemp(path);
    ck_assert(descriptor >= 0);
    close(descriptor);
    const int count = cost_kernel_count();
    double ms[128], loaded[128];
    for (int i = 0; i < count; i++)
        ms[i] = 10.0 + i / 8.0;
    const CostPlan plan = { count - 1, ms, COST_SCHEDULE_CYCLIC, { 3.5, NAN, 2.25 } };
    ck_assert(cost_plan_save(path, &plan));
    CostPlan back = { .kernel_ms = loaded };
    ck_assert(cost_plan_load(path, &back));
    ck_assert_int_eq(back.kernel, plan.kernel);
    ck_assert_int_eq(back.schedule, COST_SCHEDULE_CYCLIC);
    for (int i = 0; i < count; i++)
        ck_assert_double_eq_tol(loaded[i], ms[i], 1e-4);
    ck_assert(back.schedule_ms[0] == 3.5 && isnan(back.schedule_ms[1])
              && back.schedule_ms[2] == 2.25);
    char text[20000];
    FILE *file = fopen(path, "r");
    const size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    char *cpu = strstr(text, "\ncpu ");
    ck_assert(cpu != NULL);
    cpu[5] ^= 1;                                    /* another processor */
    write_text(path, text, length);
    ck_assert(!cost_plan_load(path, &back));
    cpu[5] ^= 1;
    write_text(path, text, length - 8);             /* the last time cut short */
    ck_assert(!cost_plan_load(path, &back));
    char *schedule = strstr(text, "\nschedule 2\n");
    ck_assert(schedule != NULL);
    schedule[10] = '7';                             /* a schedule there is not */
    write_text(path, text, length);
    ck_assert(!cost_plan_load(path, &back));
    remove(path);
    ck_assert(!cost_plan_load(path, &back));
}
END_TEST

Suite *cost_suite(void)
{
    Suite *suite = suite_create("cost");
    TCase *variants = tcase_create("variants");
    tcase_add_test(variants, every_variant_matches_the_reference_on_sizes_that_are_not_multiples_of_a_tile);
    tcase_add_test(variants, naive_and_causal_accept_any_width);
    tcase_add_test(variants, flash_gives_the_same_bits_on_any_number_of_threads);
    tcase_add_test(variants, flash_does_not_leak_the_future);
    tcase_add_test(variants, every_kernel_matches_the_reference);
    tcase_add_test(variants, the_rule_is_the_kernel_the_text_names);
    tcase_add_test(variants, a_fixed_kernel_gives_the_same_bits_every_run);
    suite_add_tcase(suite, variants);
    TCase *parts = tcase_create("parts");
    tcase_add_test(parts, online_softmax_of_two_blocks_is_the_softmax_of_both);
    tcase_add_test(parts, vector_exp_is_accurate_on_the_range_a_softmax_uses);
    tcase_add_test(parts, fma_chains_equal_their_closed_form);
    tcase_add_test(parts, the_flop_count_is_the_lower_triangle);
    tcase_add_test(parts, only_the_naive_memory_grows_as_n_squared);
    tcase_add_test(parts, variants_are_found_by_name_and_refuse_widths_they_cannot_tile);
    tcase_add_test(parts, the_bandwidth_sum_counts_every_element_once);
    tcase_add_test(parts, the_bandwidth_measure_says_what_it_found);
    tcase_add_test(parts, the_schedule_bound_matches_an_exhaustive_split_on_two_threads);
    tcase_add_test(parts, the_planner_names_the_fastest_schedule_it_timed);
    tcase_add_test(parts, the_profile_of_flash_gives_its_bits_and_counts_every_flop_once);
    tcase_add_test(parts, the_traffic_model_matches_a_count_and_the_closed_form);
    tcase_add_test(parts, the_loop_orders_compute_the_same_product);
    tcase_add_test(parts, four_sums_group_the_products_in_another_order);
    tcase_add_test(parts, the_planner_names_the_fastest_kernel_it_timed);
    tcase_add_test(parts, a_plan_loads_back_only_under_its_own_key);
    suite_add_tcase(suite, parts);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, cost_attend_refuses_a_width_its_tiles_do_not_cover,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, cost_attend_refuses_an_output_of_the_wrong_shape,
                                SIGABRT);
    tcase_add_test_raise_signal(refused, the_profile_refuses_a_width_its_tiles_do_not_cover,
                                SIGABRT);
    tcase_add_loop_test_raise_signal(refused, the_loop_orders_refuse_shapes_that_do_not_chain,
                                     SIGABRT, 0, 2);
    suite_add_tcase(suite, refused);
    return suite;
}
