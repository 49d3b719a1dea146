/* Tests of the decode module (chapter 11): the bottom-right causal mask is chapter 3's mask on
 * a square and lets one query see every key; decoding with the cache equals the full causal
 * pass bit for bit (chapter 5's multihead_forward), and a sliding window equals the band mask;
 * a stack of two layers, a cache each, equals the full pass of each layer in turn; grouped
 * key/value heads equal copied ones; the split-KV merge equals the one-thread read, and a merge
 * of parts that are all masked gives zeros;
 * the cache's bytes are chapter 8's count; the distance of the prefetches is Little's law and
 * changes no value; permuted weights in one RoPE layout are the model in the other; the
 * sampler's properties. */
#include <check.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "decode.h"
#include "mask.h"
#include "multihead.h"
#include "params.h"
#include "positions.h"
#include "refusal.h"
#include "softmax.h"


static void decode_sequence(const MultiHead *m, const DecodeRope *rope, Matrix x, int window,
                            Matrix output)
{
    KvCache c = decode_cache_new(m->n_heads, m->n_heads, m->d_head,
                                 window > 0 ? window : x.rows, window > 0);
    for (int t = 0; t < x.rows; t++)
        decode_step(m, rope, &c, (Matrix){ 1, x.cols, &AT(x, t, 0) },
                    (Matrix){ 1, x.cols, &AT(output, t, 0) });
    ck_assert_int_eq(c.length, x.rows);
    decode_cache_free(&c);
}

/* Latent attention (MLA): small sizes with DeepSeek-V2's ratios, d_c = 4 d_head and
 * d_R = d_head / 2. */
enum { MLA_MODEL = 32, MLA_HEADS = 4, MLA_HEAD = 16, MLA_LATENT = 64, MLA_ROPE = 8 };

static float random_number(Rng *rng)
{
    return (float)(rng_uniform(rng) - 0.5);
}

START_TEST(the_latent_reader_is_the_mqa_reader_of_keys_and_their_first_numbers)
{
    enum { N = 300, DK = MLA_LATENT + MLA_ROPE, NH = MLA_HEADS };
    const KvShape shape = { NH, 1, DK, N, false, 0, DECODE_FLOAT, 0 };
    const float scale = 1.0f / sqrtf((float)(MLA_HEAD + MLA_ROPE));
    KvCache latent = decode_cache_make_latent(shape, MLA_LATENT, scale);
    KvCache plain = decode_cache_make_latent(shape, 0, scale);
    Rng rng;
    rng_seed(&rng, 51, 1);
    float key[DK], value[DK] = { 0 }, query[NH * DK];
    for (int p = 0; p < N; p++) {
        for (int k = 0; k < DK; k++)
            key[k] = 4.0f * random_number(&rng);
        memcpy(value, key, MLA_LATENT * sizeof *key);       /* [c; 0] */
        decode_cache_append(&latent, key, NULL);
        decode_cache_append(&plain, key, value);
    }
    for (int e = 0; e < NH * DK; e++)
        query[e] = 4.0f * random_number(&rng);
    ck_assert(decode_cache_bytes(&latent) * 2 == decode_cache_bytes(&plain));
    float once[NH * DK], plain_once[NH * DK], three_passes[NH * DK];
    decode_attend_once(&latent, query, once);
    decode_attend_once(&plain, query, plain_once);
    decode_attend(&plain, query, three_passes);
    double worst = 0.0;
    for (int h = 0; h < NH; h++)
        for (int k = 0; k < DK; k++) {
            const int e = h * DK + k;
            if (k < MLA_LATENT)
                ck_assert_msg(once[e] == plain_once[e], "head %d, number %d", h, k);
            else
                ck_assert(once[e] == 0.0f && plain_once[e] == 0.0f);
            worst = fmax(worst, fabs(once[e] - three_passes[e]));
        }
    /* the scores are the same; the weights differ by each reader's own rounding, eta of
       the text, with scores below 4 * 4 * 72 / sqrt(24); the values are below 2 */
    const double u = 0x1p-24, S = 4.0 * 4.0 * DK / sqrt(MLA_HEAD + MLA_ROPE);
    const double eta = (N / 256 + 2) * (4e-7 + 3.0 * u) + 2.0 * u * S + (N + 2) * u;
    const double tolerance = (expm1(2.0 * eta) + 2.0 * (N + 7) * u) * 2.0;
    ck_assert_msg(worst <= tolerance && worst > 0.0, "%g against %g", worst, tolerance);
    decode_cache_free(&latent);
    decode_cache_free(&plain);
}
END_TEST

static void mla_decode_all(const Mla *m, Matrix x, bool absorbed, Matrix output)
{
    KvCache c = mla_cache_new(m, x.rows, 0);
    for (int t = 0; t < x.rows; t++) {
        const Matrix row = { 1, x.cols, &AT(x, t, 0) }, out = { 1, x.cols, &AT(output, t, 0) };
        if (absorbed)
            mla_step_absorbed(m, &c, row, out);
        else
            mla_step_naive(m, &c, row, out);
    }
    decode_cache_free(&c);
}

START_TEST(absorbed_naive_and_full_pass_agree_within_the_derived_tolerance)
{
    enum { T = 40 };
    Mla m = mla_new(MLA_MODEL, MLA_HEADS, MLA_HEAD, MLA_LATENT, MLA_ROPE, 52);
    Rng rng;
    rng_seed(&rng, 52, 2);
    Matrix x = matrix_new_normal(T, MLA_MODEL, &rng, 1.0f), full = matrix_new(T, MLA_MODEL),
           naive = matrix_new(T, MLA_MODEL), absorbed = matrix_new(T, MLA_MODEL);
    mla_full_forward(&m, x, full);
    mla_decode_all(&m, x, false, naive);
    mla_decode_all(&m, x, true, absorbed);
    const double tolerance = mla_tolerance(&m, x);
    double largest = 0.0;
    for (int e = 0; e < T * MLA_MODEL; e++)
        if (fabs((double)full.data[e]) > largest)
            largest = fabs((double)full.data[e]);
    ck_assert_msg(tolerance < 0.05 * largest, "a tolerance of %g says nothing", tolerance);
    const double d[3] = { matrix_largest_difference(absorbed, naive),
                          matrix_largest_difference(absorbed, full),
                          matrix_largest_difference(naive, full) };
    for (int k = 0; k < 3; k++)
        ck_assert_msg(d[k] <= tolerance, "pair %d: %g against %g", k, d[k], tolerance);
    ck_assert(d[0] > 0.0);          /* the sums are reassociated: not bit for bit */
    /* the scale of the head's d_head numbers alone, a classic slip, is caught */
    KvCache wrong = decode_cache_make_latent(
        (KvShape){ MLA_HEADS, 1, MLA_LATENT + MLA_ROPE, T, false, 0, DECODE_FLOAT, 0 },
        MLA_LATENT, 1.0f / sqrtf((float)MLA_HEAD));
    for (int t = 0; t < T; t++)
        mla_step_absorbed(&m, &wrong, (Matrix){ 1, MLA_MODEL, &AT(x, t, 0) },
                          (Matrix){ 1, MLA_MODEL, &AT(absorbed, t, 0) });
    ck_assert_msg(matrix_largest_difference(absorbed, full) > tolerance, "the wrong scale passes");
    decode_cache_free(&wrong);
    Matrix *all[] = { &x, &full, &naive, &absorbed };
    for (int a = 0; a < 4; a++)
        matrix_free(all[a]);
    mla_free(&m);
}
END_TEST

/* The score of head keys rotated by RoPE, q R_t . (c W R_p), against what absorbing W^UK
   can give with the latent rotated instead, (q W^T R'_t) . (c R'_p): equal when t = p,
   far apart otherwise, since W^T R'_d is not R_d W^T. */
START_TEST(rotating_the_latent_breaks_absorption)
{
    enum { D = MLA_HEAD, DC = MLA_LATENT, T = 12 };
    Rng rng;
    rng_seed(&rng, 53, 3);
    Matrix w = matrix_new_normal(DC, D, &rng, 1.0f / sqrtf(DC)),
           q = matrix_new_normal(1, D, &rng, 1.0f), c = matrix_new_normal(T, DC, &rng, 1.0f),
           k = matrix_new(T, D), wt = matrix_new(D, DC), absorbed = matrix_new(1, DC),
           qt = matrix_new(1, D);
    matrix_multiply(c, w, k);
    rope_rotate(&k, 0, D, ROPE_HALF_SPLIT, POSITIONS_BASE);          /* c_p W R_p */
    matrix_transpose(w, wt);
    matrix_multiply(q, wt, absorbed);
    memcpy(qt.data, q.data, sizeof(float) * D);
    rope_rotate(&qt, T - 1, D, ROPE_HALF_SPLIT, POSITIONS_BASE);      /* q R_t */
    rope_rotate(&absorbed, T - 1, DC, ROPE_HALF_SPLIT, POSITIONS_BASE);   /* q W^T R'_t */
    rope_rotate(&c, 0, DC, ROPE_HALF_SPLIT, POSITIONS_BASE);         /* c_p R'_p */
    double largest = 0.0, worst_past = 0.0, at_t = 0.0;
    for (int p = 0; p < T; p++) {
        double want = 0.0, got = 0.0;
        for (int i = 0; i < D; i++)
            want += (double)qt.data[i] * AT(k, p, i);
        for (int j = 0; j < DC; j++)
            got += (double)absorbed.data[j] * AT(c, p, j);
        largest = fmax(largest, fabs(want));
        if (p == T - 1)
            at_t = fabs(want - got);
        else
            worst_past = fmax(worst_past, fabs(want - got));
    }
    ck_assert_msg(at_t <= 1e-5 * largest, "at p = t: %g", at_t);
    ck_assert_msg(worst_past >= 0.2 * largest, "%g against %g", worst_past, largest);
    Matrix *all[] = { &w, &q, &c, &k, &wt, &absorbed, &qt };
    for (int a = 0; a < 7; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(a_latent_cache_holds_d_c_plus_d_r_floats_a_position)
{
    Mla m = mla_new(MLA_MODEL, MLA_HEADS, MLA_HEAD, MLA_LATENT, MLA_ROPE, 54);
    KvCache c = mla_cache_new(&m, 4 * decode_tile_slots(), 0);
    ck_assert_uint_eq(decode_cache_bytes(&c),
                      (size_t)4 * decode_tile_slots() * (MLA_LATENT + MLA_ROPE) * sizeof(float));
    ck_assert(c.values == NULL);
    decode_cache_free(&c);
    mla_free(&m);
}
END_TEST

START_TEST(a_latent_cache_refuses_a_shorter_format)
{
    const KvShape shape = { 1, 1, 8, 16, false, 0, DECODE_HALF, 0 };
    KvCache c = decode_cache_make_latent(shape, 4, 0.0f);
    decode_cache_free(&c);
}
END_TEST

START_TEST(on_a_square_the_mask_is_the_causal_mask_of_chapter_3)
{
    for (int n = 1; n <= 9; n++) {
        Matrix a = matrix_new(n, n), b = matrix_new(n, n);
        for (int e = 0; e < n * n; e++)
            a.data[e] = b.data[e] = (float)e;
        mask_causal(a, NULL);
        decode_mask_causal(b, NULL);
        ck_assert(memcmp(a.data, b.data, sizeof(float) * (size_t)(n * n)) == 0);
        matrix_free(&a);
        matrix_free(&b);
    }
}
END_TEST

START_TEST(a_block_of_queries_at_the_end_sees_the_rows_of_the_square_mask)
{
    const int n = 11;
    Matrix square = matrix_new(n, n);
    matrix_fill(square, 1.0f);
    mask_causal(square, NULL);
    for (int r = 1; r <= n; r++) {
        Matrix block = matrix_new(r, n);
        matrix_fill(block, 1.0f);
        decode_mask_causal(block, NULL);
        for (int i = 0; i < r; i++)
            for (int j = 0; j < n; j++)
                ck_assert(AT(block, i, j) == AT(square, n - r + i, j));
        if (r == 1)                             /* one query sees every key */
            for (int j = 0; j < n; j++)
                ck_assert(AT(block, 0, j) == 1.0f);
        matrix_free(&block);
    }
    matrix_free(&square);
}
END_TEST

START_TEST(a_window_keeps_exactly_the_last_w_positions)
{
    const int rows = 5, cols = 12, w = 3;
    Matrix s = matrix_new(rows, cols);
    matrix_fill(s, 2.0f);
    const DecodeBand band = { w, 0 };
    decode_mask(s, &band);
    for (int i = 0; i < rows; i++) {
        const int position = i + cols - rows;
        for (int j = 0; j < cols; j++) {
            const bool seen = j <= position && position - j < w;
            ck_assert(seen ? AT(s, i, j) == 2.0f : isinf(AT(s, i, j)));
        }
    }
    matrix_free(&s);
}
END_TEST

/* Widths that fill whole vectors and widths that leave a tail; lengths past a tile. */
START_TEST(cached_decoding_equals_the_full_causal_pass_bit_for_bit)
{
    const int shapes[][3] = { { 32, 4, 37 }, { 60, 3, 70 }, { 128, 2, 5 }, { 24, 1, 1 } };
    for (int s = 0; s < 4; s++) {
        const int d = shapes[s][0], heads = shapes[s][1], T = shapes[s][2];
        Rng rng;
        rng_seed(&rng, 40 + (uint64_t)s, 1);
        MultiHead m = multihead_new(d, heads, &rng);
        Matrix x = matrix_new_normal(T, d, &rng, 1.0f), full = matrix_new(T, d),
               cached = matrix_new(T, d), weights = matrix_new(heads * T, T);
        multihead_forward(&m, x, true, mask_causal, NULL, weights, full);
        decode_sequence(&m, NULL, x, 0, cached);
        ck_assert(memcmp(full.data, cached.data, sizeof(float) * (size_t)(T * d)) == 0);
        decode_full_forward(&m, NULL, x, DECODE_NO_BAND, cached);
        ck_assert(memcmp(full.data, cached.data, sizeof(float) * (size_t)(T * d)) == 0);
        multihead_free(&m);
        Matrix *all[] = { &x, &full, &cached, &weights };
        for (int a = 0; a < 4; a++)
            matrix_free(all[a]);
    }
}
END_TEST

START_TEST(a_ring_of_w_slots_equals_the_band_mask_bit_for_bit)
{
    const int d = 40, heads = 5, T = 3 * decode_tile_slots() + 7;
    const int windows[] = { 1, 5, decode_tile_slots(), decode_tile_slots() + 3, T };
    Rng rng;
    rng_seed(&rng, 77, 1);
    MultiHead m = multihead_new(d, heads, &rng);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), band = matrix_new(T, d),
           ring = matrix_new(T, d), weights = matrix_new(heads * T, T);
    /* The band is chapter 5's full pass with the window as the mask's context. */
    for (int w = 0; w < 5; w++) {
        const DecodeBand b = { windows[w], 0 };
        multihead_forward(&m, x, true, decode_mask, &b, weights, band);
        decode_sequence(&m, NULL, x, windows[w], ring);
        ck_assert_msg(matrix_largest_difference(band, ring) == 0.0, "window %d", windows[w]);
    }
    /* The window is not the full pass: a short window changes late outputs. */
    decode_full_forward(&m, NULL, x, DECODE_NO_BAND, band);
    decode_sequence(&m, NULL, x, 5, ring);
    ck_assert(matrix_largest_difference(band, ring) > 1e-3);
    multihead_free(&m);
    Matrix *all[] = { &x, &band, &ring, &weights };
    for (int a = 0; a < 4; a++)
        matrix_free(all[a]);
}
END_TEST

/* Keys stored rotated: with RoPE, with and without a window, in both layouts. */
START_TEST(cached_decoding_with_rope_equals_the_full_pass_with_rope)
{
    const int d = 48, heads = 3, T = 2 * decode_tile_slots() + 9;
    const RopeLayout layouts[2] = { ROPE_INTERLEAVED, ROPE_HALF_SPLIT };
    Rng rng;
    rng_seed(&rng, 55, 1);
    MultiHead m = multihead_new(d, heads, &rng);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), full = matrix_new(T, d),
           cached = matrix_new(T, d), plain = matrix_new(T, d);
    for (int l = 0; l < 2; l++) {
        const DecodeRope rope = { layouts[l], 10000.0 };
        for (int window = 0; window <= 7; window += 7) {
            decode_full_forward(&m, &rope, x, (DecodeBand){ window, 0 }, full);
            decode_sequence(&m, &rope, x, window, cached);
            ck_assert_msg(matrix_largest_difference(full, cached) == 0.0, "layout %d window %d", l,
                          window);
        }
        /* RoPE is not a no-op: the outputs differ from the pass without positions. */
        decode_full_forward(&m, NULL, x, DECODE_NO_BAND, plain);
        ck_assert(matrix_largest_difference(full, plain) > 1e-3);
    }
    multihead_free(&m);
    Matrix *all[] = { &x, &full, &cached, &plain };
    for (int a = 0; a < 4; a++)
        matrix_free(all[a]);
}
END_TEST

static void fill_random(KvCache *c, int positions, Rng *rng)
{
    const int row = c->kv_heads * c->d_head;
    float *k = malloc(sizeof(float) * (size_t)row), *v = malloc(sizeof(float) * (size_t)row);
    for (int p = 0; p < positions; p++) {
        for (int e = 0; e < row; e++)
            k[e] = (float)rng_normal(rng), v[e] = (float)rng_normal(rng);
        decode_cache_append(c, k, v);
    }
    free(k);
    free(v);
}

START_TEST(grouped_heads_equal_full_heads_with_copied_keys_and_values)
{
    const int heads = 6, dh = 12, positions = 45;
    const int kv_options[] = { 1, 2, 3, 6 };
    for (int o = 0; o < 4; o++) {
        const int kv = kv_options[o], group = heads / kv;
        KvCache grouped = decode_cache_new(heads, kv, dh, positions, false);
        KvCache copied = decode_cache_new(heads, heads, dh, positions, false);
        Rng rng;
        rng_seed(&rng, 9, (uint64_t)o);
        float k[6 * 12], v[6 * 12], k_all[6 * 12], v_all[6 * 12];
        for (int p = 0; p < positions; p++) {
            for (int e = 0; e < kv * dh; e++)
                k[e] = (float)rng_normal(&rng), v[e] = (float)rng_normal(&rng);
            for (int h = 0; h < heads; h++)
                for (int c = 0; c < dh; c++)
                    k_all[h * dh + c] = k[(h / group) * dh + c],
                    v_all[h * dh + c] = v[(h / group) * dh + c];
            decode_cache_append(&grouped, k, v);
            decode_cache_append(&copied, k_all, v_all);
        }
        float q[6 * 12], a[6 * 12], b[6 * 12];
        for (int e = 0; e < heads * dh; e++)
            q[e] = (float)rng_normal(&rng);
        decode_attend(&grouped, q, a);
        decode_attend(&copied, q, b);
        ck_assert(memcmp(a, b, sizeof a) == 0);
        ck_assert(decode_cache_bytes(&grouped) * (size_t)group ==
                  decode_cache_bytes(&copied));
        decode_cache_free(&grouped);
        decode_cache_free(&copied);
    }
}
END_TEST

/* The split adds the weighted values in another order.  Each of its n additions, and each of
 * the one-thread read's, errs by at most 2^-24 of the sum of the magnitudes of the terms, and
 * the exponentials and weights by a few units of the last place more (16 cover them): the two
 * differ by at most 2 (n + 16) 2^-24 of that sum, which a twin cache holding |v| gives. */
START_TEST(the_split_merge_equals_the_one_thread_read)
{
    const int heads = 4, dh = 16;
    for (int windowed = 0; windowed < 2; windowed++) {
        const int capacity = windowed ? 50 : 200, positions = windowed ? 173 : 200;
        KvCache c = decode_cache_new(heads, 2, dh, capacity, windowed);
        KvCache twin = decode_cache_new(heads, 2, dh, capacity, windowed);
        Rng rng;
        rng_seed(&rng, 12, (uint64_t)windowed);
        float k[2 * 16], v[2 * 16], size[2 * 16];
        for (int p = 0; p < positions; p++) {
            for (int e = 0; e < 2 * dh; e++) {
                k[e] = (float)rng_normal(&rng), v[e] = (float)rng_normal(&rng);
                size[e] = fabsf(v[e]);
            }
            decode_cache_append(&c, k, v);
            decode_cache_append(&twin, k, size);
        }
        float q[4 * 16], one[4 * 16], split[4 * 16], magnitude[4 * 16];
        for (int e = 0; e < heads * dh; e++)
            q[e] = 2.0f * (float)rng_normal(&rng);
        decode_attend(&c, q, one);
        decode_attend(&twin, q, magnitude);
        const double tolerance = 2.0 * (capacity + 16) * 0x1p-24;
        for (int parts = 1; parts <= 7; parts++) {
            decode_attend_split(&c, q, parts, split);
            for (int e = 0; e < heads * dh; e++)
                ck_assert_double_le(fabs((double)split[e] - one[e]),
                                    tolerance * magnitude[e]);
        }
        decode_cache_free(&c);
        decode_cache_free(&twin);
    }
}
END_TEST

/* The split of the heads gives the split with one part, to the last bit, on any number of
 * threads, and both equal the one-thread read to rounding. */
START_TEST(the_split_of_the_heads_equals_one_part_bit_for_bit)
{
    const int heads = 8, dh = 16;
    const int kv_heads[3] = { 8, 2, 1 };
    for (int a = 0; a < 3; a++)
        for (int windowed = 0; windowed < 2; windowed++) {
            KvCache c = decode_cache_new(heads, kv_heads[a], dh, windowed ? 40 : 150,
                                         windowed);
            Rng rng;
            rng_seed(&rng, 13, (uint64_t)(2 * a + windowed));
            fill_random(&c, windowed ? 97 : 150, &rng);
            float q[8 * 16], one[8 * 16], part[8 * 16], split[8 * 16];
            for (int e = 0; e < heads * dh; e++)
                q[e] = 2.0f * (float)rng_normal(&rng);
            decode_attend(&c, q, one);
            decode_attend_split(&c, q, 1, part);
            for (int threads = 1; threads <= 5; threads++) {
                decode_attend_heads(&c, q, threads, split);
                ck_assert(memcmp(split, part, sizeof part) == 0);
            }
            for (int e = 0; e < heads * dh; e++)
                ck_assert_float_eq_tol(part[e], one[e], 2e-6f * (1.0f + fabsf(one[e])));
            decode_cache_free(&c);
        }
}
END_TEST

/* Two layers on a residual stream, each with its own cache, decoded token by token, equal the
 * full causal pass of each layer in turn with the same residual sums: every layer's keys and
 * values at the earlier positions are final. */
START_TEST(a_stack_of_cached_layers_equals_the_full_pass)
{
    enum { T = 17, D = 24, HEADS = 3 };
    MultiHead layers[2] = { multihead_toy(D, HEADS, 71), multihead_toy(D, HEADS, 72) };
    Rng rng;
    rng_seed(&rng, 73, 1);
    Matrix x = matrix_new_normal(T, D, &rng, 1.0f), full = matrix_new(T, D),
           y = matrix_new(T, D), weights = matrix_new(HEADS * T, T), row = matrix_new(1, D);
    memcpy(full.data, x.data, sizeof(float) * T * D);
    KvCache caches[2];
    for (int l = 0; l < 2; l++) {
        multihead_forward(&layers[l], full, true, mask_causal, NULL, weights, y);
        for (int k = 0; k < T * D; k++)
            full.data[k] += y.data[k];
        caches[l] = decode_cache_new(HEADS, HEADS, D / HEADS, T, false);
    }
    for (int t = 0; t < T; t++) {
        memcpy(row.data, &AT(x, t, 0), sizeof(float) * D);
        decode_stack_step(layers, 2, caches, row);
        for (int c = 0; c < D; c++)
            ck_assert_float_eq_tol(row.data[c], AT(full, t, c), 1e-5f);
    }
    for (int l = 0; l < 2; l++) {
        decode_cache_free(&caches[l]);
        multihead_free(&layers[l]);
    }
    Matrix *all[] = { &x, &full, &y, &weights, &row };
    for (int a = 0; a < 5; a++)
        matrix_free(all[a]);
}
END_TEST

START_TEST(a_merged_part_with_no_allowed_key_adds_nothing)
{
    const float outputs[2 * 3] = { 4.0f, -2.0f, 8.0f, 0.0f, 0.0f, 0.0f };
    const float max[2] = { 1.5f, -INFINITY }, sum[2] = { 2.0f, 0.0f };
    float out[3];
    decode_merge(outputs, max, sum, 2, 1, 3, out);
    ck_assert(out[0] == 2.0f && out[1] == -1.0f && out[2] == 4.0f);
    /* Two parts with different maxima: the closed form of the rescaling. */
    const float o2[2] = { 1.0f, 3.0f }, m2[2] = { 0.0f, 1.0f }, s2[2] = { 2.0f, 1.0f };
    decode_merge(o2, m2, s2, 2, 1, 1, out);
    const double e = exp(-1.0);
    ck_assert_double_eq_tol(out[0], (e * 1.0 + 3.0) / (e * 2.0 + 1.0), 1e-6);
    /* Every part masked: zeros, as softmax_row gives for a row of -infinity. */
    const float none[2] = { -INFINITY, -INFINITY }, nothing[2] = { 0.0f, 0.0f };
    decode_merge(outputs, none, nothing, 2, 1, 3, out);
    ck_assert(out[0] == 0.0f && out[1] == 0.0f && out[2] == 0.0f);
    float row[3] = { -INFINITY, -INFINITY, -INFINITY };
    softmax_row(row, 3);
    ck_assert(row[0] == 0.0f && row[1] == 0.0f && row[2] == 0.0f);
}
END_TEST

/* decode_add_part takes decode_merge's rule: a part whose maximum is -infinity counts zero,
 * whether it is the running part or the one added, and two such parts give no NaN. */
START_TEST(a_folded_part_that_is_masked_whole_adds_nothing)
{
    float out[3] = { 4.0f, -2.0f, 8.0f }, max = 1.5f, sum = 2.0f;
    const float masked[3] = { 0.0f, 0.0f, 0.0f };
    decode_add_part(out, &max, &sum, masked, -INFINITY, 0.0f, 3);
    ck_assert(out[0] == 4.0f && out[1] == -2.0f && out[2] == 8.0f);
    ck_assert(max == 1.5f && sum == 2.0f);
    /* Two parts masked whole: still nothing, and no NaN. */
    float none[3] = { 0.0f, 0.0f, 0.0f }, none_max = -INFINITY, none_sum = 0.0f;
    decode_add_part(none, &none_max, &none_sum, masked, -INFINITY, 0.0f, 3);
    for (int e = 0; e < 3; e++)
        ck_assert(none[e] == 0.0f);
    ck_assert(none_max == -INFINITY && none_sum == 0.0f);
    /* A running part that has seen nothing becomes the part added, exactly. */
    const float part[3] = { 1.0f, 3.0f, -5.0f };
    decode_add_part(none, &none_max, &none_sum, part, 0.25f, 6.0f, 3);
    ck_assert(none[0] == 1.0f && none[1] == 3.0f && none[2] == -5.0f);
    ck_assert(none_max == 0.25f && none_sum == 6.0f);
    /* Two parts that see keys: the closed form of the rescaling, as decode_merge's. */
    float o[1] = { 1.0f }, m = 0.0f, s = 2.0f;
    const float fresh[1] = { 3.0f };
    decode_add_part(o, &m, &s, fresh, 1.0f, 1.0f, 1);
    const double e = exp(-1.0);
    ck_assert_double_eq_tol(o[0] / s, (e * 1.0 + 3.0) / (e * 2.0 + 1.0), 1e-6);
    ck_assert(m == 1.0f);
}
END_TEST

START_TEST(the_cache_holds_the_bytes_that_chapter_8_counts)
{
    const int shapes[][3] = { { 12, 4, 64 }, { 8, 1, 128 }, { 32, 8, 16 } };
    for (int s = 0; s < 3; s++) {
        const int heads = shapes[s][0], kv = shapes[s][1], dh = shapes[s][2];
        const int positions = 3 * decode_tile_slots();
        const ModelShape shape = { .name = "test", .layers = 1, .d_model = heads * dh,
                                   .heads = heads, .d_head = dh, .kv_heads = kv,
                                   .d_ff = 4 * heads * dh, .vocab = 10, .context = 100 };
        KvCache c = decode_cache_new(heads, kv, dh, positions, false);
        ck_assert_uint_eq(decode_cache_bytes(&c),
                          (size_t)params_kv_cache(&shape, positions, 4));
        decode_cache_free(&c);
    }
}
END_TEST

/* The two layouts of RoPE are one model: permuting the output columns of W_Q and W_K in each
 * head, from the half-split order to the interleaved one, as Hugging Face's conversion of
 * Llama does the other way, gives the same layer in the other layout. */
START_TEST(permuted_weights_in_one_rope_layout_are_the_model_in_the_other)
{
    const int d = 24, heads = 3, dh = d / heads, T = 11;
    MultiHead split = multihead_toy(d, heads, 81), mixed = multihead_toy(d, heads, 81);
    for (int r = 0; r < d; r++)
        for (int h = 0; h < heads; h++)
            for (int c = 0; c < dh; c++) {
                const int place = c < dh / 2 ? 2 * c : 2 * (c - dh / 2) + 1;
                AT(mixed.w_query, r, h * dh + place) = AT(split.w_query, r, h * dh + c);
                AT(mixed.w_key, r, h * dh + place) = AT(split.w_key, r, h * dh + c);
            }
    Rng rng;
    rng_seed(&rng, 82, 1);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), a = matrix_new(T, d), b = matrix_new(T, d);
    const DecodeRope half = { ROPE_HALF_SPLIT, 10000.0 }, pairs = { ROPE_INTERLEAVED, 10000.0 };
    decode_full_forward(&split, &half, x, DECODE_NO_BAND, a);
    decode_full_forward(&mixed, &pairs, x, DECODE_NO_BAND, b);
    ck_assert_double_le(matrix_largest_difference(a, b), 1e-5);
    decode_full_forward(&split, &pairs, x, DECODE_NO_BAND, b);        /* unpermuted: another model */
    ck_assert_double_gt(matrix_largest_difference(a, b), 1e-3);
    Matrix *all[] = { &x, &a, &b };
    for (int k = 0; k < 3; k++)
        matrix_free(all[k]);
    multihead_free(&split);
    multihead_free(&mixed);
}
END_TEST

/* Little's law in closed form: 100 ns at 10 GB/s is 1000 bytes on their way, four rows of
 * 64 floats rounded up and one tile; a short latency still asks one of each. */
START_TEST(the_distance_ahead_is_latency_times_bandwidth)
{
    const DecodeAhead a = decode_ahead_for(100.0, 10.0, 64, decode_tile_slots());
    ck_assert_int_eq(a.value_rows, 4);
    ck_assert_int_eq(a.key_tiles, 1);
    const int tile_bytes = 64 * 4 * decode_tile_slots();
    const DecodeAhead far = decode_ahead_for(3.0 * tile_bytes / 10.0 + 1.0, 10.0, 64,
                                              decode_tile_slots());
    ck_assert_int_eq(far.key_tiles, 4);
    ck_assert_int_eq(far.value_rows, 3 * decode_tile_slots() + 1);
    const DecodeAhead near = decode_ahead_for(1.0, 1.0, 64, decode_tile_slots());
    ck_assert(near.value_rows == 1 && near.key_tiles == 1);
    int tiles[DECODE_TILE_CHOICES];
    decode_tile_choices(tiles);
    const DecodeAhead narrow = decode_ahead_for(3.0 * tile_bytes / 10.0 + 1.0, 10.0, 64,
                                                tiles[0]);
    ck_assert_int_eq(narrow.key_tiles, 3 * decode_tile_slots() / tiles[0] + 1);
    ck_assert_int_eq(narrow.value_rows, far.value_rows);
    ck_assert_double_gt(decode_latency_ns(1 << 16, 100), 0.0);
}
END_TEST

/* A prefetch changes no value: any distance ahead, none included, gives the same bits. */
START_TEST(asking_ahead_changes_no_value)
{
    const int heads = 4, kv = 2, dh = 16, positions = 5 * decode_tile_slots() + 3;
    KvCache c = decode_cache_new(heads, kv, dh, positions, false);
    Rng rng;
    rng_seed(&rng, 77, 1);
    float key[2 * 16], value[2 * 16], query[4 * 16], first[4 * 16], other[4 * 16];
    for (int p = 0; p < positions; p++) {
        for (int e = 0; e < kv * dh; e++) {
            key[e] = (float)rng_normal(&rng);
            value[e] = (float)rng_normal(&rng);
        }
        decode_cache_append(&c, key, value);
    }
    for (int e = 0; e < heads * dh; e++)
        query[e] = (float)rng_normal(&rng);
    decode_attend_split(&c, query, 1, first);
    const DecodeAhead distances[] = { { 0, 0 }, { 0, 5 }, { 3, 0 }, { 7, 100 } };
    for (int a = 0; a < 4; a++) {
        c.ahead = distances[a];
        decode_attend_split(&c, query, 1, other);
        ck_assert(memcmp(first, other, sizeof first) == 0);
        decode_attend_heads(&c, query, 2, other);
        ck_assert(memcmp(first, other, sizeof first) == 0);
    }
    decode_cache_free(&c);
}
END_TEST

START_TEST(a_window_holds_its_last_positions)
{
    KvCache c = decode_cache_new(2, 2, 4, 5, true);
    Rng rng;
    rng_seed(&rng, 1, 1);
    fill_random(&c, 3, &rng);
    ck_assert_int_eq(decode_cache_first(&c), 0);
    fill_random(&c, 9, &rng);
    ck_assert_int_eq(c.length, 12);
    ck_assert_int_eq(decode_cache_first(&c), 7);
    decode_cache_free(&c);
}
END_TEST

START_TEST(greedy_and_a_cold_temperature_pick_the_arg_max)
{
    Rng rng;
    rng_seed(&rng, 5, 1);
    double logits[10];
    for (int trial = 0; trial < 200; trial++) {
        int best = 0;
        for (int i = 0; i < 10; i++) {
            logits[i] = 4.0 * rng_normal(&rng);
            best = logits[i] > logits[best] ? i : best;
        }
        logits[best] += 0.5;                    /* a clear winner */
        ck_assert_int_eq(decode_sample(logits, 10, 0.0, &rng), best);
        ck_assert_int_eq(decode_sample(logits, 10, 1e-3, &rng), best);
    }
}
END_TEST

START_TEST(a_token_of_probability_zero_is_never_drawn)
{
    Rng rng;
    rng_seed(&rng, 6, 1);
    const double logits[5] = { -INFINITY, 0.0, -INFINITY, 0.1, -INFINITY };
    for (int draw = 0; draw < 5000; draw++) {
        const int t = decode_sample(logits, 5, draw % 2 ? 1.0 : 50.0, &rng);
        ck_assert(t == 1 || t == 3);
    }
}
END_TEST

/* Each count is within 5 standard deviations of n p, at temperatures 1 and 2. */
START_TEST(the_frequencies_of_many_draws_match_the_softmax)
{
    const double logits[4] = { 0.0, 1.0, -1.0, 2.0 }, temperatures[2] = { 1.0, 2.0 };
    const int n = 40000;
    for (int t = 0; t < 2; t++) {
        Rng rng;
        rng_seed(&rng, 8, (uint64_t)t);
        int count[4] = { 0 };
        for (int draw = 0; draw < n; draw++)
            count[decode_sample(logits, 4, temperatures[t], &rng)]++;
        double total = 0.0, p[4];
        for (int i = 0; i < 4; i++)
            total += p[i] = exp(logits[i] / temperatures[t]);
        for (int i = 0; i < 4; i++) {
            const double expected = n * p[i] / total;
            ck_assert(fabs(count[i] - expected) <
                      5.0 * sqrt(expected * (1.0 - p[i] / total)));
        }
    }
}
END_TEST

START_TEST(a_full_cache_refuses_another_position)
{
    KvCache c = decode_cache_new(1, 1, 4, 2, false);
    Rng rng;
    rng_seed(&rng, 1, 1);
    fill_random(&c, 3, &rng);
}
END_TEST

START_TEST(query_heads_must_be_a_multiple_of_kv_heads)
{
    KvCache c = decode_cache_new(6, 4, 8, 10, false);
    decode_cache_free(&c);
}
END_TEST

START_TEST(a_tile_must_be_one_of_the_choices)
{
    int tiles[DECODE_TILE_CHOICES];
    decode_tile_choices(tiles);
    KvCache c = decode_cache_make(
        (KvShape){ 2, 2, 8, 10, false, 0, DECODE_FLOAT, tiles[0] + 1 });
    decode_cache_free(&c);
}
END_TEST

START_TEST(a_mask_refuses_more_queries_than_keys)
{
    Matrix s = matrix_new(5, 4);
    decode_mask_causal(s, NULL);
    matrix_free(&s);
}
END_TEST

START_TEST(the_sampler_refuses_a_negative_temperature)
{
    Rng rng;
    rng_seed(&rng, 1, 1);
    const double logits[2] = { 0.0, 1.0 };
    decode_sample(logits, 2, -1.0, &rng);
}
END_TEST

START_TEST(an_empty_cache_cannot_be_read)
{
    KvCache c = decode_cache_new(1, 1, 4, 2, false);
    float q[4] = { 0 }, out[4];
    decode_attend(&c, q, out);
}
END_TEST

/* Every half that is a number comes back from float unchanged, the instructions and the C
 * agree on it, and a float rounds to the nearer of the two halves around it, a tie to the
 * even one. */
START_TEST(every_half_survives_the_round_trip_and_rounding_is_to_the_nearest)
{
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0)
            continue;                               /* not a number */
        const float x = decode_from_half((uint16_t)h);
        ck_assert_msg(memcmp(&x, &(float){ decode_from_half_portable((uint16_t)h) },
                             sizeof x) == 0, "half %x", h);
        ck_assert_int_eq(decode_to_half(x), h);
        ck_assert_int_eq(decode_to_half_portable(x), h);
    }
    Rng rng;
    rng_seed(&rng, 16, 1);
    for (int r = 0; r < 200000; r++) {
        const float x = (float)(rng_normal(&rng) * ldexp(1.0, (int)(rng_uniform(&rng) * 40) - 28));
        const uint16_t h = decode_to_half(x);
        ck_assert_int_eq(h, decode_to_half_portable(x));
        const float y = decode_from_half(h);
        if (fabsf(x) >= 0x1p-14f && fabsf(x) <= 65504.0f)
            ck_assert(fabsf(y - x) <= 0x1p-11f * fabsf(x));
        if (fabsf(x) <= 65504.0f)                   /* the bound of the text, any size */
            ck_assert(fabs((double)y - x) <= 0x1p-11 * fabs((double)x) + 0x1p-25);
        const uint16_t up = (uint16_t)(h + 1), down = (uint16_t)(h - 1);
        if ((h & 0x7fff) != 0 && (h & 0x7fff) < 0x7bff) {
            ck_assert(fabsf(x - y) <= fabsf(x - decode_from_half(up)));
            ck_assert(fabsf(x - y) <= fabsf(x - decode_from_half(down)));
        }
    }
    /* 1 + 2^-11 lies halfway between 1 and the next half: the tie goes to 1, whose fraction
     * is even; 1 + 3 * 2^-11 goes up to the even 1 + 2^-9. */
    ck_assert_int_eq(decode_to_half(1.0f + 0x1p-11f), 0x3c00);
    ck_assert_int_eq(decode_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);
    ck_assert_int_eq(decode_to_half_portable(1.0f + 3 * 0x1p-11f), 0x3c02);
    ck_assert_int_eq(decode_to_half_portable(65520.0f), 0x7c00);
    ck_assert_int_eq(decode_to_half_portable(65519.0f), 0x7bff);
    ck_assert_int_eq(decode_to_half_portable(0x1p-25f), 0);       /* a tie to 0, even */
    ck_assert_int_eq(decode_to_half_portable(0x1.8p-24f), 2);     /* a tie to 2 */
    /* Below 2^-14 the error is absolute: 1.5 * 2^-24 is 2^-25 from its half, far more than
     * 2^-11 of itself, and exactly the bound's second term. */
    const double tie = 0x1.8p-24, off = fabs((double)decode_from_half(2) - tie);
    ck_assert(off > 0x1p-11 * tie && off == 0x1p-25);
}
END_TEST

static KvCache filled_in(DecodeFormat format, int tile, int heads, int kv, int dh,
                         int positions, const float *keys, const float *values)
{
    KvCache c = decode_cache_make((KvShape){ heads, kv, dh, positions, false, 0, format,
                                            tile });
    for (int p = 0; p < positions; p++)
        decode_cache_append(&c, keys + (size_t)p * kv * dh, values + (size_t)p * kv * dh);
    return c;
}

static float *normal_numbers(int count, Rng *rng)
{
    float *x = malloc(sizeof *x * (size_t)count);
    for (int e = 0; e < count; e++)
        x[e] = (float)rng_normal(rng);
    return x;
}

/* The half cache reads exactly what it stores: its outputs, with every width of tile, are
 * those of a float cache that holds the same numbers rounded to halves, bit for bit. */
START_TEST(a_half_cache_is_a_float_cache_of_the_rounded_numbers)
{
    const int heads = 4, kv = 2, dh = 20, positions = 3 * decode_tile_slots() + 5;
    Rng rng;
    rng_seed(&rng, 17, 1);
    const int count = positions * kv * dh;
    float *keys = normal_numbers(count, &rng), *values = normal_numbers(count, &rng);
    float *rounded_keys = malloc(sizeof *keys * (size_t)count);
    float *rounded_values = malloc(sizeof *values * (size_t)count);
    for (int e = 0; e < count; e++) {
        rounded_keys[e] = decode_from_half(decode_to_half(keys[e]));
        rounded_values[e] = decode_from_half(decode_to_half(values[e]));
    }
    KvCache rounded =
        filled_in(DECODE_FLOAT, 0, heads, kv, dh, positions, rounded_keys, rounded_values);
    KvCache exact = filled_in(DECODE_FLOAT, 0, heads, kv, dh, positions, keys, values);
    float *q = normal_numbers(heads * dh, &rng), a[4 * 20], b[4 * 20], e[4 * 20];
    decode_attend(&rounded, q, b);
    decode_attend(&exact, q, e);
    int tiles[DECODE_TILE_CHOICES];
    for (int w = 0; w < decode_tile_choices(tiles); w++) {
        KvCache half =
            filled_in(DECODE_HALF, tiles[w], heads, kv, dh, positions, keys, values);
        decode_attend(&half, q, a);
        ck_assert_msg(memcmp(a, b, sizeof a) == 0, "tile %d", tiles[w]);
        ck_assert(decode_cache_bytes(&half) * 2 ==
                  decode_cache_bytes(&exact) * (size_t)half.tiles * half.tile /
                      ((size_t)exact.tiles * exact.tile));
        decode_cache_free(&half);
    }
    ck_assert(memcmp(b, e, sizeof b) != 0);       /* the rounding did change something */
    decode_cache_free(&rounded);
    decode_cache_free(&exact);
    free(keys), free(values), free(rounded_keys), free(rounded_values), free(q);
}
END_TEST

/* Each key of a full tile is within half its channel's scale of the float, the scale being
 * the channel's largest magnitude in the tile over 127; each value within half its row's
 * scale; the newest, unfilled tile is kept in float. */
START_TEST(eight_bits_keep_each_number_within_half_its_scale)
{
    const int heads = 2, dh = 12, tile = decode_tile_slots(), positions = 2 * tile + 3;
    Rng rng;
    rng_seed(&rng, 18, 1);
    const int count = positions * heads * dh;
    float *keys = normal_numbers(count, &rng), *values = normal_numbers(count, &rng);
    for (int p = 0; p < positions; p++)
        keys[p * heads * dh + 5] *= 20.0f;          /* a channel of outliers in head 0 */
    KvCache c = filled_in(DECODE_EIGHTBIT, 0, heads, heads, dh, positions, keys, values);
    for (int g = 0; g < heads; g++)
        for (int p = 0; p < positions; p++) {
            const int t = p / tile, lane = p % tile;
            float top = 0.0f;
            for (int k = 0; k < dh; k++)
                top = fmaxf(top, fabsf(values[(p * heads + g) * dh + k]));
            const size_t row = (size_t)g * c.tiles * tile + (size_t)p;
            ck_assert(fabsf(c.value_scales[row] - top / 127.0f) <= 1e-6f * top);
            for (int k = 0; k < dh; k++) {
                const float v = values[(p * heads + g) * dh + k];
                ck_assert(fabsf(c.value_scales[row] * c.byte_values[row * dh + k] - v) <=
                          0.5f * c.value_scales[row] * (1 + 1e-5f));
            }
            if (t == positions / tile)
                continue;                           /* the tile being filled */
            for (int k = 0; k < dh; k++) {
                float channel_top = 0.0f;
                for (int j = t * tile; j < (t + 1) * tile; j++)
                    channel_top = fmaxf(channel_top, fabsf(keys[(j * heads + g) * dh + k]));
                const float s = c.key_scales[((size_t)g * c.tiles + t) * dh + k];
                ck_assert(fabsf(s - channel_top / 127.0f) <= 1e-6f * channel_top);
                const size_t at = (((size_t)g * c.tiles + t) * dh + k) * tile + lane;
                const float x = keys[(p * heads + g) * dh + k];
                ck_assert(fabsf(s * c.byte_keys[at] - x) <= 0.5f * s * (1 + 1e-5f));
            }
        }
    const int last = positions / tile;
    for (int k = 0; k < dh; k++)
        ck_assert(c.filling[(size_t)k * tile + positions % tile - 1] ==
                  keys[((positions - 1) * heads) * dh + k]);
    decode_cache_free(&c);
    (void)last;
    free(keys), free(values);
}
END_TEST

/* The derived bound of head h, (e^(2 eps) - 1) max|v| + max|dv|, from what the cache stored:
 * eps is the largest change of a scaled score, over every position. */
static double eight_bit_bound(const KvCache *bytes, int h, int positions, const float *keys,
                              const float *values, const float *q)
{
    const int kv = bytes->kv_heads, dh = bytes->d_head, g = h / (bytes->n_heads / kv);
    const int tile = bytes->tile;
    double eps = 0.0, v_top = 0.0, dv_top = 0.0;
    for (int p = 0; p < positions; p++) {
        const int t = p / tile, lane = p % tile;
        const bool stored = (t + 1) * tile <= positions;
        double change = 0.0;
        const size_t row = (size_t)g * bytes->tiles * tile + (size_t)p;
        for (int k = 0; k < dh; k++) {
            const float x = keys[(p * kv + g) * dh + k];
            const size_t at = (((size_t)g * bytes->tiles + t) * dh + k) * tile + lane;
            const float s = bytes->key_scales[((size_t)g * bytes->tiles + t) * dh + k];
            const double stored_x = stored ? (double)s * bytes->byte_keys[at] : x;
            change += q[h * dh + k] * (stored_x - x);
            const float v = values[(p * kv + g) * dh + k];
            const double dv =
                (double)bytes->value_scales[row] * bytes->byte_values[row * dh + k] - v;
            v_top = fabs(v) > v_top ? fabs(v) : v_top;
            dv_top = fabs(dv) > dv_top ? fabs(dv) : dv_top;
        }
        eps = fmax(eps, fabs(change) / sqrt((double)dh));
    }
    return (exp(2 * eps) - 1) * v_top + dv_top + 1e-5;
}

/* Attention over an eight-bit cache, with every width of tile, is within the bound of the
 * text of the float result: (e^(2 eps) - 1) max |v| + max |dv|, eps the largest change of a
 * score, computed here from the stored numbers themselves. */
START_TEST(attention_over_eight_bits_stays_within_the_derived_bound)
{
    const int heads = 4, kv = 2, dh = 32;
    const int positions = 4 * decode_tile_slots() + 9;
    Rng rng;
    rng_seed(&rng, 19, 1);
    const int count = positions * kv * dh;
    float *keys = normal_numbers(count, &rng), *values = normal_numbers(count, &rng);
    float *q = normal_numbers(heads * dh, &rng), a[4 * 32], b[4 * 32];
    KvCache exact = filled_in(DECODE_FLOAT, 0, heads, kv, dh, positions, keys, values);
    decode_attend(&exact, q, b);
    int tiles[DECODE_TILE_CHOICES];
    for (int w = 0; w < decode_tile_choices(tiles); w++) {
        KvCache bytes =
            filled_in(DECODE_EIGHTBIT, tiles[w], heads, kv, dh, positions, keys, values);
        decode_attend(&bytes, q, a);
        for (int h = 0; h < heads; h++) {
            const double bound = eight_bit_bound(&bytes, h, positions, keys, values, q);
            const double worst = matrix_largest_difference(
                (Matrix){ 1, dh, a + h * dh }, (Matrix){ 1, dh, b + h * dh });
            ck_assert_msg(worst <= bound, "tile %d, head %d: %g > %g", tiles[w], h, worst,
                          bound);
            ck_assert(worst > 0.0);
        }
        ck_assert(2 * decode_cache_bytes(&bytes) < decode_cache_bytes(&exact));
        decode_cache_free(&bytes);
    }
    decode_cache_free(&exact);
    free(keys), free(values), free(q);
}
END_TEST

static void decode_with_sinks(const MultiHead *m, Matrix x, DecodeBand band, int tile,
                              Matrix output)
{
    KvCache c = decode_cache_make((KvShape){ m->n_heads, m->n_heads, m->d_head,
                                            band.window + band.sinks, true, band.sinks,
                                            DECODE_FLOAT, tile });
    ck_assert_int_eq(c.tile, tile == 0 ? decode_tile_slots() : tile);
    for (int t = 0; t < x.rows; t++)
        decode_step(m, NULL, &c, (Matrix){ 1, x.cols, &AT(x, t, 0) },
                    (Matrix){ 1, x.cols, &AT(output, t, 0) });
    decode_cache_free(&c);
}

/* A window with sinks is the band mask that keeps the first k columns, bit for bit, for
 * lengths well past the ring's wrap, with every width of tile; without the sinks it is
 * not. */
START_TEST(a_window_with_sinks_equals_the_band_that_keeps_the_first_columns)
{
    const int d = 24, heads = 3, T = 2 * decode_tile_slots() + 11;
    const DecodeBand bands[] = { { 1, 1 }, { 5, 1 }, { 6, 4 }, { decode_tile_slots(), 3 },
                                 { decode_tile_slots() + 1, 2 } };
    Rng rng;
    rng_seed(&rng, 21, 1);
    MultiHead m = multihead_new(d, heads, &rng);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), full = matrix_new(T, d),
           cached = matrix_new(T, d), plain = matrix_new(T, d);
    int tiles[DECODE_TILE_CHOICES + 1] = { 0 };
    const int widths = decode_tile_choices(tiles + 1) + 1;
    for (int b = 0; b < 5; b++) {
        decode_full_forward(&m, NULL, x, bands[b], full);
        for (int w = 0; w < widths; w++) {
            decode_with_sinks(&m, x, bands[b], tiles[w], cached);
            ck_assert_msg(matrix_largest_difference(full, cached) == 0.0,
                          "band %d, tile %d", b, tiles[w]);
        }
        decode_full_forward(&m, NULL, x, (DecodeBand){ bands[b].window, 0 }, plain);
        ck_assert(matrix_largest_difference(full, plain) > 1e-4);
    }
    multihead_free(&m);
    Matrix *all[] = { &x, &full, &cached, &plain };
    for (int a = 0; a < 4; a++)
        matrix_free(all[a]);
}
END_TEST

/* Prefill in blocks of several sizes, into a plain cache, a ring and a ring with sinks,
 * blocks crossing the wrap: within float rounding of the full pass with the band mask. */
START_TEST(prefill_in_blocks_equals_the_full_pass_with_its_band)
{
    const int d = 32, heads = 4, T = 3 * decode_tile_slots() + 13;
    const DecodeBand bands[] = { { 0, 0 }, { 7, 0 }, { 9, 2 }, { decode_tile_slots(), 1 } };
    const int blocks[] = { 1, 4, 13, 40 };
    Rng rng;
    rng_seed(&rng, 22, 1);
    MultiHead m = multihead_new(d, heads, &rng);
    Matrix x = matrix_new_normal(T, d, &rng, 1.0f), full = matrix_new(T, d),
           filled = matrix_new(T, d);
    const DecodeRope rope = { ROPE_HALF_SPLIT, 10000.0 };
    for (int b = 0; b < 4; b++) {
        decode_full_forward(&m, &rope, x, bands[b], full);
        for (int s = 0; s < 4; s++) {
            const bool ring = bands[b].window > 0;
            KvCache c = decode_cache_make((KvShape){
                heads, heads, d / heads, ring ? bands[b].window + bands[b].sinks : T, ring,
                bands[b].sinks, DECODE_FLOAT, 0 });
            for (int t = 0; t < T; t += blocks[s]) {
                const int r = T - t < blocks[s] ? T - t : blocks[s];
                decode_prefill(&m, &rope, &c, (Matrix){ r, d, &AT(x, t, 0) },
                               (Matrix){ r, d, &AT(filled, t, 0) });
            }
            ck_assert_int_eq(c.length, T);
            const double diff = matrix_largest_difference(full, filled);
            ck_assert_msg(diff <= 1e-5, "band %d block %d: %g", b, blocks[s], diff);
            decode_cache_free(&c);
        }
    }
    multihead_free(&m);
    Matrix *all[] = { &x, &full, &filled };
    for (int a = 0; a < 3; a++)
        matrix_free(all[a]);
}
END_TEST

typedef struct {
    const float *bias;
    int n_heads, length, head;
} BiasMask;

/* A full pass's mask that adds a head's bias by distance, then masks causally. */
static void add_bias_and_mask(Matrix scores, const void *context)
{
    const BiasMask *b = context;
    for (int i = 0; i < scores.rows; i++)
        for (int j = 0; j <= i; j++)
            AT(scores, i, j) += b->bias[b->head * b->length + i - j];
    decode_mask_causal(scores, NULL);
}

/* With a bias by distance, one query head at a time: the cache's reader adds the bias as the
 * full pass's scores do, bit for bit. */
START_TEST(the_bias_by_distance_is_added_as_the_full_pass_adds_it)
{
    const int dh = 8, T = decode_tile_slots() + 6;
    Rng rng;
    rng_seed(&rng, 23, 1);
    MultiHead m = multihead_new(dh, 1, &rng);
    float bias[1 * 80];
    for (int e = 0; e < T; e++)
        bias[e] = (float)rng_normal(&rng);
    Matrix x = matrix_new_normal(T, dh, &rng, 1.0f), full = matrix_new(T, dh),
           cached = matrix_new(T, dh), weights = matrix_new(T, T);
    const BiasMask mask = { bias, 1, T, 0 };
    multihead_forward(&m, x, true, add_bias_and_mask, &mask, weights, full);
    KvCache c = decode_cache_new(1, 1, dh, T, false);
    c.bias = bias;
    c.bias_length = T;
    for (int t = 0; t < T; t++)
        decode_step(&m, NULL, &c, (Matrix){ 1, dh, &AT(x, t, 0) },
                    (Matrix){ 1, dh, &AT(cached, t, 0) });
    ck_assert(matrix_largest_difference(full, cached) == 0.0);
    decode_cache_free(&c);
    multihead_free(&m);
    Matrix *all[] = { &x, &full, &cached, &weights };
    for (int a = 0; a < 4; a++)
        matrix_free(all[a]);
}
END_TEST

Suite *decode_suite(void)
{
    Suite *suite = suite_create("decode");
    TCase *core = tcase_create("cache");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, on_a_square_the_mask_is_the_causal_mask_of_chapter_3);
    tcase_add_test(core, a_block_of_queries_at_the_end_sees_the_rows_of_the_square_mask);
    tcase_add_test(core, a_window_keeps_exactly_the_last_w_positions);
    tcase_add_test(core, cached_decoding_equals_the_full_causal_pass_bit_for_bit);
    tcase_add_test(core, a_ring_of_w_slots_equals_the_band_mask_bit_for_bit);
    tcase_add_test(core, cached_decoding_with_rope_equals_the_full_pass_with_rope);
    tcase_add_test(core, grouped_heads_equal_full_heads_with_copied_keys_and_values);
    tcase_add_test(core, the_split_merge_equals_the_one_thread_read);
    tcase_add_test(core, a_stack_of_cached_layers_equals_the_full_pass);
    tcase_add_test(core, the_split_of_the_heads_equals_one_part_bit_for_bit);
    tcase_add_test(core, a_merged_part_with_no_allowed_key_adds_nothing);
    tcase_add_test(core, a_folded_part_that_is_masked_whole_adds_nothing);
    tcase_add_test(core, the_cache_holds_the_bytes_that_chapter_8_counts);
    tcase_add_test(core, a_window_holds_its_last_positions);
    tcase_add_test(core, the_distance_ahead_is_latency_times_bandwidth);
    tcase_add_test(core, permuted_weights_in_one_rope_layout_are_the_model_in_the_other);
    tcase_add_test(core, asking_ahead_changes_no_value);
    tcase_add_test(core, greedy_and_a_cold_temperature_pick_the_arg_max);
    tcase_add_test(core, a_token_of_probability_zero_is_never_drawn);
    tcase_add_test(core, the_frequencies_of_many_draws_match_the_softmax);
    tcase_add_test(core, every_half_survives_the_round_trip_and_rounding_is_to_the_nearest);
    tcase_add_test(core, a_half_cache_is_a_float_cache_of_the_rounded_numbers);
    tcase_add_test(core, eight_bits_keep_each_number_within_half_its_scale);
    tcase_add_test(core, attention_over_eight_bits_stays_within_the_derived_bound);
    tcase_add_test(core, a_window_with_sinks_equals_the_band_that_keeps_the_first_columns);
    tcase_add_test(core, prefill_in_blocks_equals_the_full_pass_with_its_band);
    tcase_add_test(core, the_bias_by_distance_is_added_as_the_full_pass_adds_it);
    suite_add_tcase(suite, core);
    TCase *latent = tcase_create("latent attention");
    tcase_set_timeout(latent, 60);
    tcase_add_test(latent, the_latent_reader_is_the_mqa_reader_of_keys_and_their_first_numbers);
    tcase_add_test(latent, absorbed_naive_and_full_pass_agree_within_the_derived_tolerance);
    tcase_add_test(latent, rotating_the_latent_breaks_absorption);
    tcase_add_test(latent, a_latent_cache_holds_d_c_plus_d_r_floats_a_position);
    suite_add_tcase(suite, latent);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, a_full_cache_refuses_another_position, SIGABRT);
    tcase_add_test_raise_signal(refused, query_heads_must_be_a_multiple_of_kv_heads, SIGABRT);
    tcase_add_test_raise_signal(refused, a_tile_must_be_one_of_the_choices, SIGABRT);
    tcase_add_test_raise_signal(refused, a_mask_refuses_more_queries_than_keys, SIGABRT);
    tcase_add_test_raise_signal(refused, the_sampler_refuses_a_negative_temperature, SIGABRT);
    tcase_add_test_raise_signal(refused, an_empty_cache_cannot_be_read, SIGABRT);
    tcase_add_test_raise_signal(refused, a_latent_cache_refuses_a_shorter_format, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
