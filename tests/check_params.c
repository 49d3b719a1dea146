/* Tests of the params module (chapter 8): every count against its closed form, GPT-2's
 * published totals, grouped-query attention with H_kv = H against multi-head attention, the
 * floats that chapter 5's MultiHead really allocates, the text's claims about GPT-3's rounded
 * totals and the GPT-2 paper's vocabulary, the key/value cache, the FLOPs and their crossover,
 * the checks on a description, and the formatters. */
#include <check.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "multihead.h"
#include "params.h"
#include "rng.h"
#include "refusal.h"

/* A GPT-style decoder as GPT-2 builds it: biases, tied output, d_ff = 4d, H d_head = d. */
static ModelShape gpt(int layers, int d, int heads, int vocab, int context)
{
    ModelShape m = { "test", layers, d, heads, d / heads, heads, 4 * d, vocab, context, true,
                     true };
    return m;
}

/* The closed form of the chapter, written out independently:
 * N = (V + n_ctx) d + L (12 d^2 + 13 d) + 2 d. */
static int64_t closed_form(int64_t layers, int64_t d, int64_t vocab, int64_t context)
{
    return (vocab + context) * d + layers * (12 * d * d + 13 * d) + 2 * d;
}

START_TEST(one_layer_of_attention_is_four_d_squared_and_four_d_with_biases)
{
    const int widths[] = { 8, 64, 768, 1600, 12288 }, heads[] = { 1, 4, 12, 25, 96 };
    for (int k = 0; k < 5; k++) {
        ModelShape m = gpt(1, widths[k], heads[k], 100, 10);
        const int64_t d = widths[k];
        ck_assert_int_eq(params_attention(&m), 4 * d * d + 4 * d);
        ck_assert_int_eq(params_attention_weights(&m), 4 * d * d);
        m.biases = false;
        ck_assert_int_eq(params_attention(&m), 4 * d * d);
        ck_assert_int_eq(params_attention_weights(&m), 4 * d * d);
    }
}
END_TEST

START_TEST(the_attention_count_does_not_depend_on_how_d_is_split_into_heads)
{
    const int heads[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 48, 96 };
    for (int k = 0; k < 11; k++) {
        ModelShape m = gpt(2, 1536, heads[k], 50, 20);
        ck_assert_int_eq(params_attention(&m), 4 * 1536LL * 1536 + 4 * 1536);
    }
}
END_TEST

START_TEST(mlp_is_two_matrices_and_biases)
{
    const int d[] = { 1, 7, 768, 5140 }, f[] = { 1, 13, 3072, 20560 };
    for (int k = 0; k < 4; k++) {
        ModelShape m = gpt(1, d[k], 1, 10, 10);
        m.d_ff = f[k];
        ck_assert_int_eq(params_mlp(&m), 2LL * d[k] * f[k] + f[k] + d[k]);
        m.biases = false;
        ck_assert_int_eq(params_mlp(&m), 2LL * d[k] * f[k]);
    }
}
END_TEST

START_TEST(gpt2_totals_are_reproduced_exactly)
{
    /* The released checkpoints: 124M, 355M, 774M and 1558M. */
    const ModelShape small = gpt(12, 768, 12, 50257, 1024), medium = gpt(24, 1024, 16, 50257, 1024),
                     large = gpt(36, 1280, 20, 50257, 1024), xl = gpt(48, 1600, 25, 50257, 1024);
    ck_assert_int_eq(params_count(&small).total, INT64_C(124439808));
    ck_assert_int_eq(params_count(&medium).total, INT64_C(354823168));
    ck_assert_int_eq(params_count(&large).total, INT64_C(774030080));
    ck_assert_int_eq(params_count(&xl).total, INT64_C(1557611200));
}
END_TEST

START_TEST(the_published_list_agrees_with_its_own_totals)
{
    int exact = 0;
    for (int k = 0; k < params_published_count; k++) {
        const PublishedModel *p = &params_published[k];
        ck_assert_ptr_null(params_check(&p->shape));
        const int64_t total = params_count(&p->shape).total;
        if (p->digits == 0) {
            ck_assert_int_eq(total, p->published);
            exact++;
        } else if ((int64_t)p->shape.heads * p->shape.d_head == p->shape.d_model) {
            /* Consistent rows agree with the rounded figure to within 2 %. */
            const double ratio = (double)total / (double)p->published;
            ck_assert_double_lt(ratio, 1.02);
            ck_assert_double_gt(ratio, 0.98);
        }
    }
    ck_assert_int_eq(exact, 4);
    ck_assert_int_eq(params_published_count, 12);
}
END_TEST

static const PublishedModel *published(const char *name)
{
    for (int k = 0; k < params_published_count; k++)
        if (strcmp(params_published[k].shape.name, name) == 0)
            return &params_published[k];
    ck_abort_msg("no published model named %s", name);
    return NULL;
}

/* Does the count of a shape round to a printed figure at the digits printed? */
static bool rounds_to(const ModelShape *m, int64_t printed, int digits)
{
    return params_round(params_count(m).total, digits) == printed;
}

START_TEST(the_text_says_which_gpt3_rows_round_to_their_figures)
{
    /* "The small, large, 2.7B and 6.7B models round to their figures"; the others do not. */
    const char *round[] = { "GPT-3 Small", "GPT-3 Large", "GPT-3 2.7B", "GPT-3 6.7B" };
    const char *off[] = { "GPT-3 Medium", "GPT-3 XL", "GPT-3 13B", "GPT-3 175B" };
    for (int k = 0; k < 4; k++) {
        const PublishedModel *yes = published(round[k]), *no = published(off[k]);
        ck_assert_msg(rounds_to(&yes->shape, yes->published, yes->digits), "%s", round[k]);
        ck_assert_msg(!rounds_to(&no->shape, no->published, no->digits), "%s", off[k]);
    }
    /* 175B: 175 billion to three digits, not the 175.0B printed with four. */
    const ModelShape *largest = &published("GPT-3 175B")->shape;
    ck_assert(rounds_to(largest, INT64_C(175000000000), 3));
    /* GPT-3 XL with attention as wide as the model rounds to 1.3B; 13B with d = 5120
     * does not round to 13.0B, nor does it as printed. */
    ModelShape xl = published("GPT-3 XL")->shape, big = published("GPT-3 13B")->shape;
    xl.heads = xl.kv_heads = 16;
    ck_assert(rounds_to(&xl, INT64_C(1300000000), 2));
    big.d_model = 5120;
    big.d_ff = 4 * 5120;
    ck_assert(!rounds_to(&big, INT64_C(13000000000), 3));
}
END_TEST

/* Do all four GPT-2 counts, with this vocabulary, round to the figures of the GPT-2 paper? */
static bool fits_the_paper(int vocab)
{
    const char *names[4] = { "GPT-2 small", "GPT-2 medium", "GPT-2 large", "GPT-2 XL" };
    const int64_t paper[4] = { 117000000, 345000000, 762000000, 1542000000 };
    const int digits[4] = { 3, 3, 3, 4 };
    for (int k = 0; k < 4; k++) {
        ModelShape m = published(names[k])->shape;
        m.vocab = vocab;
        if (!rounds_to(&m, paper[k], digits[k]))
            return false;
    }
    return true;
}

START_TEST(gpt1_vocabulary_gives_the_gpt2_paper_totals)
{
    ck_assert(fits_the_paper(40478));       /* GPT-1's released vocabulary */
    ck_assert(fits_the_paper(40468) && fits_the_paper(40812));
    ck_assert(!fits_the_paper(40467) && !fits_the_paper(40813));
    ck_assert(!fits_the_paper(50257));      /* GPT-2's own does not */
}
END_TEST

START_TEST(whole_counts_equal_the_closed_form_on_random_shapes)
{
    Rng rng;
    rng_seed(&rng, 8, 1);
    for (int trial = 0; trial < 200; trial++) {
        const int heads = 1 + (int)rng_below(&rng, 32), d = heads * (1 + (int)rng_below(&rng, 64));
        const int layers = 1 + (int)rng_below(&rng, 100), vocab = 1 + (int)rng_below(&rng, 100000);
        const int context = 1 + (int)rng_below(&rng, 10000);
        ModelShape m = gpt(layers, d, heads, vocab, context);
        const ParamCount c = params_count(&m);
        ck_assert_int_eq(c.total, closed_form(layers, d, vocab, context));
        ck_assert_int_eq(c.total, c.token_embedding + c.position_embedding + c.attention +
                                  c.mlp + c.norms + c.output);
        m.tied = false;                 /* an output layer of its own adds V d */
        ck_assert_int_eq(params_count(&m).total, c.total + (int64_t)vocab * d);
        m.tied = true;
        m.biases = false;               /* removes 4d + 5d per layer, keeps the norms */
        ck_assert_int_eq(params_count(&m).total, c.total - (int64_t)layers * 9 * d);
    }
}
END_TEST

START_TEST(grouped_query_with_as_many_kv_heads_as_heads_is_multi_head)
{
    /* Against the closed form of multi-head attention, in every function that reads H_kv. */
    const int d = 1024, heads = 16;
    const ModelShape m = gpt(24, d, heads, 50257, 2048);
    ck_assert_int_eq(m.kv_heads, heads);
    ck_assert_int_eq(params_attention(&m), 4LL * d * d + 4 * d);
    ck_assert_int_eq(params_count(&m).total, closed_form(24, d, 50257, 2048));
    ck_assert_int_eq(params_kv_cache(&m, 100, 2), 2LL * 24 * d * 100 * 2);
    ck_assert_int_eq(params_flops(&m, 1).attention_projections, 2LL * 24 * 4 * d * d);
}
END_TEST

START_TEST(fewer_kv_heads_shrink_only_wk_wv_and_the_cache)
{
    const int d = 12288, heads = 96, dh = 128, groups[] = { 96, 48, 32, 8, 2, 1 };
    ModelShape full = gpt(96, d, heads, 50257, 2048);
    for (int g = 0; g < 6; g++) {
        ModelShape m = full;
        m.kv_heads = groups[g];
        const int64_t kv = (int64_t)groups[g] * dh;
        /* W_Q and W_O as before; W_K and W_V are d x kv; biases q + 2 kv + d. */
        ck_assert_int_eq(params_attention(&m), 2LL * d * d + 2 * d * kv + d + 2 * kv + d);
        ck_assert_int_eq(params_mlp(&m), params_mlp(&full));
        ck_assert_int_eq(params_kv_cache(&m, 2048, 2) * (heads / groups[g]),
                         params_kv_cache(&full, 2048, 2));
        ck_assert_int_eq(params_flops(&m, 777).scores, params_flops(&full, 777).scores);
        /* The whole count loses, in every layer, the weights and biases of W_K and W_V
         * beyond the kv columns. */
        ck_assert_int_eq(params_count(&full).total - params_count(&m).total,
                         96LL * (2 * d * ((int64_t)d - kv) + 2 * ((int64_t)d - kv)));
    }
}
END_TEST

START_TEST(params_attention_counts_the_floats_of_a_multihead)
{
    const int widths[] = { 8, 32, 64 }, heads[] = { 1, 4, 8 };
    Rng rng;
    rng_seed(&rng, 3, 3);
    for (int k = 0; k < 3; k++) {
        MultiHead layer = multihead_new(widths[k], heads[k], &rng);
        const Matrix *all[] = { &layer.w_query, &layer.w_key, &layer.w_value, &layer.w_out };
        int64_t floats = 0;
        for (int a = 0; a < 4; a++)
            floats += (int64_t)all[a]->rows * all[a]->cols;
        ModelShape m = gpt(1, widths[k], heads[k], 8, 8);
        m.biases = false;
        ck_assert_int_eq(params_attention(&m), floats);
        multihead_free(&layer);
    }
}
END_TEST

START_TEST(the_kv_cache_of_gpt3_is_its_closed_form)
{
    const ModelShape m = gpt(96, 12288, 96, 50257, 2048);
    ck_assert_int_eq(params_kv_cache(&m, 1, 2), 2LL * 96 * 12288 * 2);
    ck_assert_int_eq(params_kv_cache(&m, 1, 2), INT64_C(4718592));          /* 4.5 MiB */
    ck_assert_int_eq(params_kv_cache(&m, 2048, 2), INT64_C(9663676416));    /* 9 GiB */
    ck_assert_int_eq(params_kv_cache(&m, 0, 4), 0);
}
END_TEST

START_TEST(flops_are_two_per_weight_and_four_n_per_head_width)
{
    const ModelShape m = gpt(12, 768, 12, 50257, 1024);
    const int64_t d = 768;
    for (int64_t n = 1; n <= 4096; n *= 4) {
        const FlopCount f = params_flops(&m, n);
        ck_assert_int_eq(f.attention_projections, 2 * 12 * 4 * d * d);
        ck_assert_int_eq(f.mlp, 2 * 12 * 8 * d * d);
        ck_assert_int_eq(f.logits, 2 * d * 50257);
        ck_assert_int_eq(f.scores, 4 * n * 12 * d);
    }
    /* Two per weight: the projections and the MLP are twice the matrices' weights. */
    ModelShape bare = m;
    bare.biases = false;
    ck_assert_int_eq(params_flops(&m, 5).attention_projections + params_flops(&m, 5).mlp,
                     2 * 12 * (params_attention(&bare) + params_mlp(&bare)));
}
END_TEST

START_TEST(the_crossover_is_the_first_position_that_reaches)
{
    const ModelShape shapes[] = { gpt(12, 768, 12, 50257, 1024), gpt(96, 12288, 96, 50257, 2048),
                                  gpt(40, 5140, 40, 50257, 2048) };
    for (int s = 0; s < 3; s++) {
        ModelShape m = shapes[s];
        m.d_head = 128;                 /* 5140 is not a multiple of 40: as GPT-3's table */
        if (s < 2)
            m.d_head = m.d_model / m.heads;
        const FlopCount f = params_flops(&m, 1);
        const int64_t targets[] = { 1, f.attention_projections,
                                    f.attention_projections + f.mlp + f.logits };
        for (int t = 0; t < 3; t++) {
            const int64_t n = params_crossover(&m, targets[t]);
            ck_assert(params_flops(&m, n).scores >= targets[t]);
            if (n > 1)
                ck_assert(params_flops(&m, n - 1).scores < targets[t]);
        }
        if (s < 2)      /* multi-head attention: exactly n = 2d */
            ck_assert_int_eq(params_crossover(&m, f.attention_projections), 2 * m.d_model);
        if (s < 2) {    /* and all weight products at n = 6d + V / (2L), rounded up */
            const int64_t twice_l = 2 * (int64_t)m.layers;
            const int64_t closed = 6 * (int64_t)m.d_model + (m.vocab + twice_l - 1) / twice_l;
            ck_assert_int_eq(params_crossover(&m, targets[2]), closed);
        }
    }
    /* GPT-2 small: 6d = 4,608, and the output layer moves the crossover to 6,703. */
    ck_assert_int_eq(params_crossover(&shapes[0], params_flops(&shapes[0], 1).attention_projections
                                      + params_flops(&shapes[0], 1).mlp
                                      + params_flops(&shapes[0], 1).logits), 6703);
    /* With H_kv key/value heads the crossover is n = d (1 + H_kv / H), rounded up. */
    ModelShape mqa = gpt(12, 768, 12, 50257, 1024);
    mqa.kv_heads = 1;
    ck_assert_int_eq(params_crossover(&mqa, params_flops(&mqa, 1).attention_projections), 832);
    mqa.kv_heads = 4;
    ck_assert_int_eq(params_crossover(&mqa, params_flops(&mqa, 1).attention_projections), 1024);
}
END_TEST

START_TEST(bad_descriptions_are_refused_with_a_reason)
{
    const ModelShape good = gpt(12, 768, 12, 50257, 1024);
    ck_assert_ptr_null(params_check(&good));
    ModelShape bad[8];
    for (int k = 0; k < 8; k++)
        bad[k] = good;
    bad[0].layers = 0;
    bad[1].d_model = -5;
    bad[2].heads = 0;
    bad[3].kv_heads = 5;                /* 12 heads do not split into 5 groups */
    bad[4].kv_heads = 24;               /* more key/value heads than heads */
    bad[5].vocab = 0;
    bad[6].context = PARAMS_MAX_TOKENS + 1;
    bad[7].d_head = PARAMS_MAX_WIDTH;   /* 12 heads of 2^20 overflow the width limit */
    for (int k = 0; k < 8; k++) {
        const char *why = params_check(&bad[k]);
        ck_assert_ptr_nonnull(why);
        ck_assert(strlen(why) > 10);
    }
}
END_TEST

START_TEST(the_largest_allowed_model_does_not_overflow)
{
    /* One head as wide as the limit, an MLP as wide as the model, every size at its limit:
     * per layer 4w^2 + 4w in attention, 2w^2 + 2w in the MLP; three V x w embeddings. */
    ModelShape m = { "largest", PARAMS_MAX_LAYERS, PARAMS_MAX_WIDTH, 1, PARAMS_MAX_WIDTH, 1,
                     PARAMS_MAX_WIDTH, PARAMS_MAX_TOKENS, PARAMS_MAX_TOKENS, true, false };
    ck_assert_ptr_null(params_check(&m));
    const ParamCount c = params_count(&m);
    const double w = PARAMS_MAX_WIDTH, l = PARAMS_MAX_LAYERS, v = PARAMS_MAX_TOKENS;
    const double expected = 3 * v * w + l * (6 * w * w + 6 * w) + (2 * l + 1) * 2 * w;
    ck_assert_double_eq_tol((double)c.total, expected, expected * 1e-12);
    const FlopCount f = params_flops(&m, PARAMS_MAX_TOKENS);
    ck_assert_double_eq_tol((double)f.scores, 4.0 * v * l * w, 1.0);
    ck_assert_double_eq_tol((double)params_kv_cache(&m, PARAMS_MAX_TOKENS, 8),
                            2.0 * l * w * v * 8, 1.0);
}
END_TEST

START_TEST(rounding_keeps_the_significant_digits_asked_for)
{
    ck_assert_int_eq(params_round(355871744, 2), 360000000);
    ck_assert_int_eq(params_round(125226240, 3), 125000000);
    ck_assert_int_eq(params_round(INT64_C(174604259328), 4), INT64_C(174600000000));
    ck_assert_int_eq(params_round(INT64_C(174604259328), 3), INT64_C(175000000000));
    ck_assert_int_eq(params_round(1549, 2), 1500);
    ck_assert_int_eq(params_round(1550, 2), 1600);
    ck_assert_int_eq(params_round(7, 3), 7);
    ck_assert_int_eq(params_round(0, 1), 0);
    ck_assert_int_eq(params_round(999, 1), 1000);
}
END_TEST

START_TEST(formatters_group_digits_and_pick_units)
{
    char text[32];
    ck_assert_str_eq(params_group(124439808, text, 32), "124,439,808");
    ck_assert_str_eq(params_group(INT64_C(174604259328), text, 32), "174,604,259,328");
    ck_assert_str_eq(params_group(999, text, 32), "999");
    ck_assert_str_eq(params_group(1000, text, 32), "1,000");
    ck_assert_str_eq(params_group(0, text, 32), "0");
    ck_assert_str_eq(params_group(-1234567, text, 32), "-1,234,567");
    ck_assert_str_eq(params_short(124439808, text, 32), "124M");
    ck_assert_str_eq(params_short(28348416, text, 32), "28.3M");
    ck_assert_str_eq(params_short(1517123584, text, 32), "1.52B");
    ck_assert_str_eq(params_short(512, text, 32), "512");
    /* A unit changes where three digits would round up to a fourth. */
    ck_assert_str_eq(params_short(999, text, 32), "999");
    ck_assert_str_eq(params_short(999499, text, 32), "999k");
    ck_assert_str_eq(params_short(999600, text, 32), "1.00M");
    ck_assert_str_eq(params_short(INT64_C(999700000), text, 32), "1.00B");
    ck_assert_str_eq(params_bytes(36864, text, 32), "36.0 KiB");
    ck_assert_str_eq(params_bytes(4718592, text, 32), "4.50 MiB");
    ck_assert_str_eq(params_bytes(9663676416.0, text, 32), "9.00 GiB");
    ck_assert_str_eq(params_bytes(100, text, 32), "100 bytes");
    ck_assert_str_eq(params_bytes(1023.9 * 1024, text, 32), "1.00 MiB");
}
END_TEST

START_TEST(round_refuses_zero_digits)
{
    ck_assert(params_round(12345, 0) >= 0);
}
END_TEST

START_TEST(count_refuses_a_shape_that_fails_its_check)
{
    const ModelShape empty = { 0 };
    ck_assert(params_count(&empty).total >= 0);
}
END_TEST

Suite *params_suite(void)
{
    Suite *suite = suite_create("params");
    TCase *counts = tcase_create("counts");
    tcase_add_test(counts, one_layer_of_attention_is_four_d_squared_and_four_d_with_biases);
    tcase_add_test(counts, the_attention_count_does_not_depend_on_how_d_is_split_into_heads);
    tcase_add_test(counts, mlp_is_two_matrices_and_biases);
    tcase_add_test(counts, gpt2_totals_are_reproduced_exactly);
    tcase_add_test(counts, the_published_list_agrees_with_its_own_totals);
    tcase_add_test(counts, the_text_says_which_gpt3_rows_round_to_their_figures);
    tcase_add_test(counts, gpt1_vocabulary_gives_the_gpt2_paper_totals);
    tcase_add_test(counts, whole_counts_equal_the_closed_form_on_random_shapes);
    tcase_add_test(counts, grouped_query_with_as_many_kv_heads_as_heads_is_multi_head);
    tcase_add_test(counts, fewer_kv_heads_shrink_only_wk_wv_and_the_cache);
    tcase_add_test(counts, params_attention_counts_the_floats_of_a_multihead);
    suite_add_tcase(suite, counts);
    TCase *inference = tcase_create("inference");
    tcase_add_test(inference, the_kv_cache_of_gpt3_is_its_closed_form);
    tcase_add_test(inference, flops_are_two_per_weight_and_four_n_per_head_width);
    tcase_add_test(inference, the_crossover_is_the_first_position_that_reaches);
    suite_add_tcase(suite, inference);
    TCase *checks = tcase_create("checks and formats");
    tcase_add_test(checks, bad_descriptions_are_refused_with_a_reason);
    tcase_add_test(checks, the_largest_allowed_model_does_not_overflow);
    tcase_add_test(checks, rounding_keeps_the_significant_digits_asked_for);
    tcase_add_test(checks, formatters_group_digits_and_pick_units);
    suite_add_tcase(suite, checks);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, round_refuses_zero_digits, SIGABRT);
    tcase_add_test_raise_signal(refused, count_refuses_a_shape_that_fails_its_check, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
