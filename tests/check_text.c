/* Tests of the text module (chapter 13): the held-out split against the files it came from, the
 * loading of a folder in the order of the names, the record of a snapshot, the baselines against
 * closed forms, the evaluation against the model's own loss, the head scores of a model with
 * uniform attention against the scores worked out from the bytes alone, the in-context score of
 * a straight line, the spelling of every byte for TeX, and the cached decoder of a byte model
 * against its full pass; the control patterns scored as heads with those patterns, the gap of
 * the induction score, the alphabet, and a sample of windows against its windows. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "positions.h"
#include "text.h"
#include "refusal.h"

static void random_bytes(Rng *rng, unsigned char *bytes, size_t size, uint32_t range)
{
    for (size_t t = 0; t < size; t++)
        bytes[t] = (unsigned char)('a' + rng_below(rng, range));
}

/* Every file's bytes are its training part followed by its held-out part, the held-out part is
 * the last tenth, and the split of the same files is the same. */
START_TEST(the_split_keeps_every_byte_once_in_order)
{
    Rng rng;
    rng_seed(&rng, 5, 1);
    const size_t sizes[5] = { 0, 9, 10, 101, 4099 };
    unsigned char *files[5];
    TextCorpus c = { NULL, NULL, 0, 0, 0 }, again = { NULL, NULL, 0, 0, 0 };
    for (int f = 0; f < 5; f++) {
        files[f] = malloc(sizes[f] + 1);
        random_bytes(&rng, files[f], sizes[f], 26);
        text_corpus_add(&c, files[f], sizes[f]);
        text_corpus_add(&again, files[f], sizes[f]);
    }
    size_t train = 0, held = 0;
    for (int f = 0; f < 5; f++) {
        const size_t cut = text_held_start(sizes[f]);
        ck_assert_uint_eq(sizes[f] - cut, sizes[f] / 10);
        ck_assert(memcmp(c.train + train, files[f], cut) == 0);
        ck_assert(memcmp(c.held + held, files[f] + cut, sizes[f] - cut) == 0);
        train += cut;
        held += sizes[f] - cut;
        free(files[f]);
    }
    ck_assert_uint_eq(c.train_size, train);
    ck_assert_uint_eq(c.held_size, held);
    ck_assert_int_eq(c.files, 5);
    ck_assert(memcmp(c.train, again.train, train) == 0);
    ck_assert(memcmp(c.held, again.held, held) == 0);
    text_corpus_free(&c);
    text_corpus_free(&again);
}
END_TEST

static void write_file(const char *folder, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    FILE *file = fopen(path, "wb");
    ck_assert(file != NULL);
    fputs(text, file);
    fclose(file);
}

/* A folder's .nw files are read in the order of their names, whatever the order of writing;
 * other files are left out; a folder without one is refused with a reason. */
START_TEST(a_folder_loads_its_sources_in_the_order_of_their_names)
{
    char folder[] = "/tmp/check-text-XXXXXX";
    ck_assert(mkdtemp(folder) != NULL);
    write_file(folder, "b.nw", "bbbbbbbbbbBBBBBBBBBB");     /* 20 bytes: 18 and 2 */
    write_file(folder, "a.nw", "aaaaaaaaaA");               /* 10 bytes: 9 and 1 */
    write_file(folder, "c.txt", "cccccccccc");
    TextCorpus c;
    char error[256];
    ck_assert(text_corpus_load(&c, folder, error, sizeof error));
    ck_assert_int_eq(c.files, 2);
    ck_assert_uint_eq(c.train_size, 9 + 18);
    ck_assert(memcmp(c.train, "aaaaaaaaabbbbbbbbbbBBBBBBBB", 27) == 0);
    ck_assert(memcmp(c.held, "ABB", 3) == 0);
    text_corpus_free(&c);
    char path[512];
    const char *names[3] = { "a.nw", "b.nw", "c.txt" };
    for (int n = 0; n < 3; n++) {
        snprintf(path, sizeof path, "%s/%s", folder, names[n]);
        remove(path);
    }
    ck_assert(!text_corpus_load(&c, folder, error, sizeof error));
    ck_assert(strstr(error, "no .nw file") != NULL);
    rmdir(folder);
    ck_assert(!text_corpus_load(&c, folder, error, sizeof error));
    ck_assert(strstr(error, "cannot read") != NULL);
}
END_TEST

#define HASH "b79f652d3fa2d7fb5c4c01008bc003967574ab28cf94980b9fabbc9e2134c48d"
#define DATE "date 2024-05-17 09:41 UTC\n"

/* A record of the three lines make corpus writes is read whole (the last newline may be
 * missing); a folder without one, or no folder, is no snapshot; a record with a line missing,
 * out of order or empty, a hash too short or in upper case, a count that is no positive number,
 * a line too long or a control character in the date, is bad, and leaves nothing behind. */
START_TEST(a_snapshots_record_is_read_or_found_bad)
{
    char folder[] = "/tmp/check-text-XXXXXX", path[512];
    ck_assert(mkdtemp(folder) != NULL);
    TextSnapshot s;
    ck_assert_int_eq(text_snapshot_read(folder, &s), TEXT_SNAPSHOT_NONE);
    write_file(folder, "SNAPSHOT", DATE "sha256 " HASH "\nfiles 30\n");
    ck_assert_int_eq(text_snapshot_read(folder, &s), TEXT_SNAPSHOT_READ);
    ck_assert_str_eq(s.date, "2024-05-17 09:41 UTC");
    ck_assert_str_eq(s.sha256, HASH);
    ck_assert_int_eq(s.files, 30);
    write_file(folder, "SNAPSHOT", DATE "sha256 " HASH "\nfiles 7");
    ck_assert_int_eq(text_snapshot_read(folder, &s), TEXT_SNAPSHOT_READ);
    ck_assert_int_eq(s.files, 7);
    const char *bad[] = {
        "",
        DATE "sha256 " HASH "\n",
        "sha256 " HASH "\n" DATE "files 30\n",
        "date \nsha256 " HASH "\nfiles 30\n",
        DATE "sha256 " HASH "0\nfiles 30\n",
        DATE "sha256 b79f652d3fa2d7fb5c4c01008bc003967574ab28cf94980b9fabbc9e2134c48\nfiles 30\n",
        DATE "sha256 B79F652D3FA2D7FB5C4C01008BC003967574AB28CF94980B9FABBC9E2134C48D\nfiles 30\n",
        DATE "sha256 " HASH "\nfiles thirty\n",
        DATE "sha256 " HASH "\nfiles 0\n",
        DATE "sha256 " HASH "\nfiles -3\n",
        "date 2024-05-17\t09:41 UTC\nsha256 " HASH "\nfiles 30\n",
        "date 2024-05-17 09:41 UTC, a date far too long for the record of a snapshot to hold "
        "in its field, and a line longer than the buffer it is read into\nsha256 " HASH
        "\nfiles 30\n",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_file(folder, "SNAPSHOT", bad[k]);
        ck_assert_msg(text_snapshot_read(folder, &s) == TEXT_SNAPSHOT_BAD, "record %zu", k);
        ck_assert(s.date[0] == '\0' && s.sha256[0] == '\0' && s.files == 0);
    }
    snprintf(path, sizeof path, "%s/SNAPSHOT", folder);
    ck_assert(text_snapshot_read(path, &s) == TEXT_SNAPSHOT_NONE);     /* not a folder */
    remove(path);
    rmdir(folder);
    ck_assert(text_snapshot_read(folder, &s) == TEXT_SNAPSHOT_NONE);
}
END_TEST

/* Training on every byte once makes each byte's count 2 of 512: 8 bits, whatever is held out.  A
 * training text "ab" repeated makes p(b | a) = (n + 1) / (n + 256) with n pairs "ab". */
START_TEST(the_baselines_match_their_closed_forms)
{
    unsigned char every[256], held[7] = { 0, 9, 200, 255, 3, 3, 128 };
    for (int b = 0; b < 256; b++)
        every[b] = (unsigned char)b;
    ck_assert_double_eq_tol(text_unigram_bits(every, 256, held, 7), 8.0, 1e-12);
    unsigned char abab[100];
    for (int t = 0; t < 100; t++)
        abab[t] = t % 2 == 0 ? 'a' : 'b';
    const unsigned char ab[2] = { 'a', 'b' }, ba[2] = { 'b', 'a' }, aa[2] = { 'a', 'a' };
    ck_assert_double_eq_tol(text_bigram_bits(abab, 100, ab, 2),
                            -log2(51.0 / (50.0 + 256.0)), 1e-12);
    ck_assert_double_eq_tol(text_bigram_bits(abab, 100, ba, 2),
                            -log2(50.0 / (49.0 + 256.0)), 1e-12);
    ck_assert_double_eq_tol(text_bigram_bits(abab, 100, aa, 2),
                            -log2(1.0 / (50.0 + 256.0)), 1e-12);
    ck_assert_double_eq_tol(text_unigram_bits(abab, 100, aa, 2),
                            -log2(51.0 / 356.0), 1e-12);
}
END_TEST

static InductionModel64 byte_model(int length, int width, int heads, uint64_t seed)
{
    const InductionShape s = { 256, length, width, heads };
    InductionModel64 m = induction_new64(s);
    Rng rng;
    rng_seed(&rng, seed, 3);
    induction_init64(&m, &rng);
    KitParam64 list[INDUCTION_MATRICES];
    induction_params64(&m, list);
    for (int p = 0; p < INDUCTION_MATRICES; p++)     /* the biases, which start at 0 */
        if (list[p].role == KIT_BIAS)
            for (int e = 0; e < list[p].rows * list[p].cols; e++)
                list[p].data[e] = 0.3 * rng_normal(&rng);
    return m;
}

/* The evaluation is the model's own loss of each window, in bits, and its loss by position
 * averages to the same number. */
START_TEST(the_evaluation_is_the_models_loss_in_bits)
{
    const int T = 12, windows = 3;
    InductionModel64 m = byte_model(T, 8, 2, 7);
    Rng rng;
    rng_seed(&rng, 8, 1);
    unsigned char text[3 * 12 + 5];
    random_bytes(&rng, text, sizeof text, 20);
    double by_position[12], expected = 0.0;
    const double bits = text_evaluate(&m, text, sizeof text, windows, by_position);
    InductionWork64 w = induction_work_new64(m.shape, 1);
    int tokens[12];
    for (int n = 0; n < windows; n++) {
        for (int t = 0; t < T; t++)
            tokens[t] = text[n * T + t];
        expected += induction_forward64(&m, tokens, &w) / log(2.0) / windows;
    }
    induction_work_free64(&w);
    ck_assert_double_eq_tol(bits, expected, 1e-12);
    double mean = 0.0;
    for (int t = 0; t + 1 < T; t++)
        mean += by_position[t] / (T - 1);
    ck_assert_double_eq_tol(mean, expected, 1e-12);
    induction_free64(&m);
}
END_TEST

/* The baselines of more than two bytes (section 13.2.1 on): the Witten-Bell counts against
 * their sums, a worked example and plain arrays; the compressor's round trip; the direct path
 * against the model with its heads zeroed. */

/* Every distribution of the Witten-Bell models sums to 1 over the 256 bytes and gives each byte
 * more than 0, for every order up to 5 and for contexts seen, partly seen and never seen: bytes
 * of 'a'..'i' occur in the training text, the contexts are drawn from 'a'..'l'. */
START_TEST(witten_bell_distributions_sum_to_one)
{
    Rng rng;
    rng_seed(&rng, 21, 1);
    unsigned char train[3000], context[6];
    random_bytes(&rng, train, sizeof train, 9);
    TextNgram g = text_ngram_count(train, sizeof train, 5);
    for (int trial = 0; trial < 60; trial++) {
        const int length = trial % 7;
        random_bytes(&rng, context, sizeof context, 12);
        for (int order = 1; order <= 5; order++) {
            double sum = 0.0, least = 1.0;
            for (int b = 0; b < 256; b++) {
                const double p = text_ngram_probability(&g, order, context, length,
                                                        (unsigned char)b);
                sum += p;
                least = fmin(least, p);
            }
            ck_assert_double_eq_tol(sum, 1.0, 1e-12);
            ck_assert(least > 0.0);
        }
    }
    text_ngram_free(&g);
}
END_TEST

/* The example worked by hand in the text: "abracadabra" has N = 11 and five different bytes;
 * "b" and "ab" are each followed twice, both times by "r". */
START_TEST(witten_bell_gives_the_hand_worked_example)
{
    const unsigned char *text = (const unsigned char *)"abracadabra";
    TextNgram g = text_ngram_count(text, 11, 3);
    const unsigned char *ab = (const unsigned char *)"ab", *zz = (const unsigned char *)"zz";
    const double c0 = (1.0 + 5.0 / 256.0) / 16.0, r0 = (2.0 + 5.0 / 256.0) / 16.0;
    const double r1 = (2.0 + r0) / 3.0, r2 = (2.0 + r1) / 3.0;
    ck_assert_double_eq_tol(text_ngram_probability(&g, 3, ab, 2, 'c'),
                            (1.0 + 5.0 / 256.0) / 144.0, 1e-15);
    ck_assert_double_eq_tol(text_ngram_probability(&g, 3, ab, 2, 'r'), r2, 1e-15);
    ck_assert_double_eq_tol(text_ngram_probability(&g, 2, ab, 2, 'r'), r1, 1e-15);
    ck_assert_double_eq_tol(text_ngram_probability(&g, 1, ab, 2, 'c'), c0, 1e-15);
    ck_assert_double_eq_tol(text_ngram_probability(&g, 3, zz, 2, 'c'), c0, 1e-15);
    ck_assert_double_eq_tol(text_ngram_probability(&g, 3, zz, 2, 'z'),
                            (5.0 / 256.0) / 16.0, 1e-15);
    ck_assert(text_ngram_seen(&g, ab, 2) && text_ngram_seen(&g, ab + 1, 1));
    ck_assert(!text_ngram_seen(&g, zz, 2) && !text_ngram_seen(&g, zz, 1));
    text_ngram_free(&g);
}
END_TEST

/* Orders 1 and 2 against the formula written out over plain arrays of counts. */
START_TEST(witten_bell_orders_one_and_two_match_plain_counts)
{
    Rng rng;
    rng_seed(&rng, 22, 1);
    enum { SIZE = 2000 };
    unsigned char train[SIZE];
    random_bytes(&rng, train, SIZE, 7);
    train[SIZE - 1] = 'z';                  /* a byte followed by nothing */
    static double pair[256][256];
    double single[256] = { 0.0 }, after[256] = { 0.0 }, followers[256] = { 0.0 };
    double kinds = 0.0;
    memset(pair, 0, sizeof pair);
    for (int t = 0; t < SIZE; t++) {
        kinds += single[train[t]] == 0.0;
        single[train[t]] += 1.0;
        if (t + 1 < SIZE) {
            followers[train[t]] += pair[train[t]][train[t + 1]] == 0.0;
            pair[train[t]][train[t + 1]] += 1.0;
            after[train[t]] += 1.0;
        }
    }
    TextNgram g = text_ngram_count(train, SIZE, 2);
    ck_assert(!text_ngram_seen(&g, &train[SIZE - 1], 1));     /* z, at the end only */
    for (int a = 'a' - 1; a <= 'z'; a++)
        for (int w = 0; w < 256; w++) {
            const unsigned char h = (unsigned char)a, next = (unsigned char)w;
            const double p1 = (single[w] + kinds / 256.0) / (SIZE + kinds);
            const double p2 = after[a] > 0.0
                ? (pair[a][w] + followers[a] * p1) / (after[a] + followers[a]) : p1;
            ck_assert_double_eq_tol(text_ngram_probability(&g, 1, &h, 1, next), p1, 1e-15);
            ck_assert_double_eq_tol(text_ngram_probability(&g, 2, &h, 1, next), p2, 1e-15);
        }
    text_ngram_free(&g);
}
END_TEST

/* A context whose last 4 and 3 bytes never occur, but whose last 2 do, gets from the 5-gram
 * model exactly what the 3-gram model gives; a context never seen at all, the unigram's. */
START_TEST(unseen_contexts_fall_back_to_the_shorter)
{
    const unsigned char *text = (const unsigned char *)"the cat sat on the mat; the hat";
    TextNgram g = text_ngram_count(text, strlen((const char *)text), 5);
    const unsigned char *unseen = (const unsigned char *)"qxat", *never = (const unsigned char *)"qqqq";
    ck_assert(!text_ngram_seen(&g, unseen, 4) && !text_ngram_seen(&g, unseen + 1, 3));
    ck_assert(text_ngram_seen(&g, unseen + 2, 2));
    for (int b = 0; b < 256; b++) {
        const unsigned char w = (unsigned char)b;
        ck_assert_double_eq(text_ngram_probability(&g, 5, unseen, 4, w),
                            text_ngram_probability(&g, 3, unseen + 2, 2, w));
        ck_assert_double_eq(text_ngram_probability(&g, 5, never, 4, w),
                            text_ngram_probability(&g, 1, NULL, 0, w));
    }
    ck_assert(text_ngram_probability(&g, 5, (const unsigned char *)"the ", 4, 'c')
              > text_ngram_probability(&g, 1, NULL, 0, 'c'));
    text_ngram_free(&g);
}
END_TEST

/* The counts score each window's bytes from the bytes before them in that window only, and
 * their loss by position averages to the same number. */
START_TEST(the_counts_score_windows_as_the_model_does)
{
    Rng rng;
    rng_seed(&rng, 23, 1);
    unsigned char train[4000], held[3 * 10 + 4];
    random_bytes(&rng, train, sizeof train, 5);
    random_bytes(&rng, held, sizeof held, 6);
    TextNgram g = text_ngram_count(train, sizeof train, 4);
    const int T = 10, windows = 3;
    double by_position[9], expected = 0.0, mean = 0.0;
    const double bits = text_ngram_bits(&g, 4, held, sizeof held, T, windows, by_position);
    for (int n = 0; n < windows; n++)
        for (int t = 1; t < T; t++) {
            const unsigned char *x = held + n * T;
            const int length = t < 3 ? t : 3;
            expected -= log2(text_ngram_probability(&g, 4, x + t - length, length, x[t]));
        }
    expected /= windows * (T - 1);
    ck_assert_double_eq_tol(bits, expected, 1e-12);
    for (int t = 0; t < T - 1; t++)
        mean += by_position[t] / (T - 1);
    ck_assert_double_eq_tol(mean, expected, 1e-12);
    text_ngram_free(&g);
}
END_TEST

/* The compressed held-out text comes back whole with the same dictionary, and not with
 * another one or at another length; a dictionary that holds the text makes it cost far fewer
 * bits than no dictionary. */
START_TEST(the_compressor_decodes_and_learns_from_its_dictionary)
{
    Rng rng;
    rng_seed(&rng, 24, 1);
    enum { HELD = 3000, TRAIN = 20000 };
    unsigned char *train = malloc(TRAIN), *other = malloc(TRAIN), held[HELD], back[HELD + 1];
    random_bytes(&rng, train, TRAIN, 26);
    random_bytes(&rng, other, TRAIN, 26);
    random_bytes(&rng, held, HELD, 26);
    memcpy(train + 5000, held, HELD);
    size_t size = 0;
    unsigned char *packed = text_xz_compress(train, TRAIN, held, HELD, &size);
    ck_assert(packed != NULL && size > 0);
    ck_assert(text_xz_decompress(train, TRAIN, packed, size, back, HELD));
    ck_assert(memcmp(back, held, HELD) == 0);
    ck_assert(!text_xz_decompress(train, TRAIN, packed, size, back, HELD - 1));
    ck_assert(!text_xz_decompress(train, TRAIN, packed, size, back, HELD + 1));
    ck_assert(!text_xz_decompress(train, TRAIN, packed, size - 1, back, HELD));
    memset(back, 0, sizeof back);
    ck_assert(!text_xz_decompress(other, TRAIN, packed, size, back, HELD)
              || memcmp(back, held, HELD) != 0);
    const double known = text_compressor_bits(train, TRAIN, held, HELD);
    const double alone = text_compressor_bits(NULL, 0, held, HELD);
    ck_assert_double_eq_tol(known, 8.0 * (double)size / HELD, 1e-12);
    ck_assert(known < 0.5 && alone > 4.0);      /* log2(26) = 4.7 bits a letter */
    free(packed);
    free(train);
    free(other);
}
END_TEST

/* The direct path's table gives what the whole model gives with every head zeroed. */
START_TEST(the_direct_path_is_the_model_with_every_head_zeroed)
{
    const int T = 12, windows = 3;
    InductionModel64 m = byte_model(T, 8, 2, 25), ablated = byte_model(T, 8, 2, 25);
    Rng rng;
    rng_seed(&rng, 26, 1);
    unsigned char text[3 * 12 + 2];
    random_bytes(&rng, text, sizeof text, 26);
    for (int layer = 0; layer < 2; layer++)
        for (int head = 0; head < 2; head++)
            induction_ablate(&ablated, layer, head);
    const double direct = text_direct_path_bits(&m, text, sizeof text, windows);
    ck_assert_double_eq_tol(direct, text_evaluate(&ablated, text, sizeof text, windows, NULL),
                            1e-10);
    ck_assert(fabs(direct - text_evaluate(&m, text, sizeof text, windows, NULL)) > 1e-3);
    induction_free64(&m);
    induction_free64(&ablated);
}
END_TEST

/* With every weight zero, each head spreads query i's weight evenly over keys 0..i: its weight
 * on the byte before is 1/(i+1), and on the places after the matches, their count/(i+1).  Both
 * are worked out here from the bytes alone. */
START_TEST(uniform_heads_score_what_the_bytes_alone_give)
{
    const int T = 24, windows = 2;
    InductionModel64 m = induction_new64((InductionShape){ 256, T, 8, 2 });
    const unsigned char text[48] = "abcabcabxabcqqabcabcaaaaaabcab_abc_abcxyzabcabc";
    double previous[4], induction[4], want_previous = 0.0, want_induction = 0.0;
    double matched = 0.0;
    text_head_scores(&m, text, sizeof text, windows, previous, induction);
    for (int n = 0; n < windows; n++) {
        const unsigned char *x = text + n * T;
        for (int i = 1; i < T; i++) {
            want_previous += 1.0 / (i + 1) / (windows * (T - 1));
            int matches = 0;
            for (int j = 2; j + 1 <= i - TEXT_MATCH_GAP; j++)
                matches += x[j] == x[i] && x[j - 1] == x[i - 1] && x[j - 2] == x[i - 2];
            if (matches > 0) {
                want_induction += (double)matches / (i + 1);
                matched += 1.0;
            }
        }
    }
    ck_assert(matched > 5.0);
    for (int h = 0; h < 4; h++) {
        ck_assert_double_eq_tol(previous[h], want_previous, 1e-12);
        ck_assert_double_eq_tol(induction[h], want_induction / matched, 1e-12);
    }
    for (int threads = 1; threads <= 3; threads++) {  /* the same sums on any threads */
        double again[4], after[4];
        omp_set_num_threads(threads);
        text_head_scores(&m, text, sizeof text, windows, again, after);
        ck_assert_mem_eq(again, previous, sizeof again);
        ck_assert_mem_eq(after, induction, sizeof after);
    }
    omp_set_num_threads(omp_get_num_procs());
    induction_free64(&m);
}
END_TEST

/* The controls' patterns score through the same sums as the model's heads: the uniform pattern
 * as a model of zeros, whose heads are uniform; the local head, which looks only at the byte
 * before, nothing on the induction score, on text whose runs would credit it without the gap. */
START_TEST(a_control_pattern_scores_as_a_head_with_that_pattern)
{
    const int T = 24, windows = 2;
    InductionModel64 m = induction_new64((InductionShape){ 256, T, 8, 2 });
    const unsigned char text[49] = "aaaaaaaaaaaabcabcabcab    xx      abcabc        ";
    double previous[4], induction[4], p, i;
    text_head_scores(&m, text, sizeof text, windows, previous, induction);
    Matrix64 pattern = matrix_new64(T, T);
    induction_control_pattern(INDUCTION_UNIFORM_HEAD, pattern);
    text_pattern_scores(pattern, text, sizeof text, windows, &p, &i);
    ck_assert_double_eq_tol(p, previous[0], 1e-12);
    ck_assert_double_eq_tol(i, induction[3], 1e-12);
    ck_assert_double_gt(i, 0.0);
    induction_control_pattern(INDUCTION_LOCAL_HEAD, pattern);
    text_pattern_scores(pattern, text, sizeof text, windows, &p, &i);
    ck_assert_double_eq_tol(p, 1.0, 1e-12);
    ck_assert_double_eq(i, 0.0);
    matrix_free64(&pattern);
    induction_free64(&m);
}
END_TEST

/* A head that looks exactly g places back, g the gap, is credited on a run of one byte: the
 * byte after a match g - 1 places back is g places back.  One place nearer, it is not. */
START_TEST(the_gap_credits_a_look_just_far_enough_back)
{
    const int T = 16;
    const unsigned char text[17] = "aaaaaaaaaaaaaaaa";
    double p, i;
    Matrix64 pattern = matrix_new64(T, T);
    for (int shift = TEXT_MATCH_GAP - 1; shift <= TEXT_MATCH_GAP; shift++) {
        memset(pattern.data, 0, sizeof(double) * T * T);
        for (int r = 0; r < T; r++)
            AT(pattern, r, r >= shift ? r - shift : 0) = 1.0;
        text_pattern_scores(pattern, text, sizeof text, 1, &p, &i);
        /* matched queries: i >= TEXT_MATCH_GAP + 3; the look reaches a credited place */
        if (shift == TEXT_MATCH_GAP)
            ck_assert_double_eq_tol(i, 1.0, 1e-12);
        else
            ck_assert_double_eq(i, 0.0);
    }
    matrix_free64(&pattern);
}
END_TEST

START_TEST(the_alphabet_is_each_byte_of_the_text_once_in_order)
{
    const unsigned char text[] = { 'q', 0, 255, 'a', 'q', 0, 'a' };
    int alphabet[256];
    ck_assert_int_eq(text_alphabet(text, sizeof text, alphabet), 4);
    ck_assert_int_eq(alphabet[0], 0);
    ck_assert_int_eq(alphabet[1], 'a');
    ck_assert_int_eq(alphabet[2], 'q');
    ck_assert_int_eq(alphabet[3], 255);
    ck_assert_int_eq(text_alphabet(text, 0, alphabet), 0);
}
END_TEST

/* A sample of every window is the evaluation of them all; a sample of some is the mean of
 * the windows it names, one in every windows / sample, on any number of threads. */
START_TEST(a_sample_of_windows_is_the_mean_of_those_windows)
{
    const int T = 12;
    InductionModel64 m = byte_model(T, 8, 2, 9);
    Rng rng;
    rng_seed(&rng, 10, 1);
    unsigned char text[7 * 12 + 5];
    random_bytes(&rng, text, sizeof text, 30);
    const double all = text_evaluate(&m, text, sizeof text, 7, NULL);
    ck_assert_double_eq_tol(text_evaluate_sample(&m, text, sizeof text, 7), all, 1e-12);
    double expected = 0.0;
    const int named[3] = { 0, 2, 4 };             /* k * 7 / 3 for k = 0, 1, 2 */
    for (int k = 0; k < 3; k++)
        expected += text_evaluate(&m, text + named[k] * T, T, 1, NULL) / 3;
    for (int threads = 1; threads <= 3; threads++) {
        omp_set_num_threads(threads);
        ck_assert_double_eq_tol(text_evaluate_sample(&m, text, sizeof text, 3), expected,
                                1e-12);
    }
    omp_set_num_threads(omp_get_num_procs());
    induction_free64(&m);
}
END_TEST

/* A loss falling by one bit per position: the last eighth's mean minus the second eighth's is
 * the distance between their centres, in nats. */
START_TEST(the_in_context_score_of_a_straight_line)
{
    double by_position[32];
    for (int t = 0; t < 31; t++)
        by_position[t] = 40.0 - t;
    /* second eighth: 4..7, mean position 5.5; last eighth: 27..30, mean 28.5 */
    ck_assert_double_eq_tol(text_icl_score(by_position, 32), -23.0 * log(2.0), 1e-12);
}
END_TEST

/* Every byte is spelled with letters, digits and TeX's own punctuation only, so no byte can
 * reach TeX as a command or a special character; the spellings are those the text names. */
START_TEST(every_byte_reaches_tex_spelled)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    unsigned char every[256];
    for (int b = 0; b < 256; b++)
        every[b] = (unsigned char)b;
    text_write_tex(out, every, 256);
    fclose(out);
    for (size_t t = 0; t < length; t++) {
        const char c = text[t];
        ck_assert_msg((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                      || c == '\\' || c == '{' || c == '}' || c == ' ',
                      "character %d at %zu", c, t);
    }
    ck_assert(strstr(text, "\\char92{}") != NULL);
    ck_assert(strstr(text, "\\char123{}") != NULL);
    ck_assert(strstr(text, "\\textlangle{}80\\textrangle{}") != NULL);
    ck_assert(strstr(text, "\\textlangle{}0a") == NULL);
    ck_assert(strstr(text, "\\textparagraph\\newline{}") != NULL);
    free(text);
}
END_TEST

/* Decoded byte by byte with chapter 11's caches, a byte model gives its full pass's
 * probabilities, to float's rounding. */
START_TEST(a_byte_model_decodes_as_its_full_pass)
{
    InductionModel64 m = byte_model(16, 16, 4, 11);
    Rng rng;
    rng_seed(&rng, 12, 1);
    int tokens[2 * 16];
    for (int t = 0; t < 32; t++)
        tokens[t] = (int)rng_below(&rng, 256);
    ck_assert(induction_decoded_difference(&m, tokens, 2) < 1e-5);
    induction_free64(&m);
}
END_TEST

/* The biases start as ALiBi's, -m_h (i - j) in every layer, with chapter 10's slopes. */
START_TEST(the_biases_start_as_alibis)
{
    InductionModel64 m = byte_model(16, 16, 4, 13);
    text_bias_like_alibi(&m);
    double slopes[4];
    alibi_slopes(4, slopes);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 4; h++)
            for (int k = 0; k < 16; k++)
                ck_assert_double_eq(AT(m.stack.bias[l], h, k), -slopes[h] * k);
    ck_assert(slopes[0] > slopes[3]);
    induction_free64(&m);
}
END_TEST

START_TEST(the_counts_refuse_an_order_beyond_a_key)
{
    const unsigned char text[4] = "abc";
    text_ngram_count(text, 3, TEXT_NGRAM_LONGEST + 1);
}
END_TEST

START_TEST(a_model_refuses_an_order_above_its_own)
{
    const unsigned char text[4] = "abc";
    TextNgram g = text_ngram_count(text, 3, 2);
    text_ngram_probability(&g, 3, text, 2, 'c');
}
END_TEST

START_TEST(the_bigram_refuses_a_single_byte)
{
    const unsigned char one[1] = { 'a' };
    text_bigram_bits(one, 1, one, 1);
}
END_TEST

START_TEST(the_evaluation_refuses_more_windows_than_the_text_holds)
{
    InductionModel64 m = byte_model(8, 8, 2, 3);
    const unsigned char text[15] = "abcdefghijklmn";
    text_evaluate(&m, text, sizeof text, 2, NULL);
}
END_TEST

Suite *text_suite(void)
{
    Suite *suite = suite_create("text");
    TCase *corpus = tcase_create("corpus");
    tcase_add_test(corpus, the_split_keeps_every_byte_once_in_order);
    tcase_add_test(corpus, a_folder_loads_its_sources_in_the_order_of_their_names);
    tcase_add_test(corpus, a_snapshots_record_is_read_or_found_bad);
    tcase_add_test(corpus, the_baselines_match_their_closed_forms);
    suite_add_tcase(suite, corpus);
    TCase *counts = tcase_create("counts");
    tcase_add_test(counts, witten_bell_distributions_sum_to_one);
    tcase_add_test(counts, witten_bell_gives_the_hand_worked_example);
    tcase_add_test(counts, witten_bell_orders_one_and_two_match_plain_counts);
    tcase_add_test(counts, unseen_contexts_fall_back_to_the_shorter);
    tcase_add_test(counts, the_counts_score_windows_as_the_model_does);
    tcase_add_test(counts, the_compressor_decodes_and_learns_from_its_dictionary);
    tcase_add_test(counts, the_direct_path_is_the_model_with_every_head_zeroed);
    suite_add_tcase(suite, counts);
    TCase *model = tcase_create("model");
    tcase_add_test(model, the_evaluation_is_the_models_loss_in_bits);
    tcase_add_test(model, uniform_heads_score_what_the_bytes_alone_give);
    tcase_add_test(model, a_control_pattern_scores_as_a_head_with_that_pattern);
    tcase_add_test(model, the_gap_credits_a_look_just_far_enough_back);
    tcase_add_test(model, the_alphabet_is_each_byte_of_the_text_once_in_order);
    tcase_add_test(model, a_sample_of_windows_is_the_mean_of_those_windows);
    tcase_add_test(model, the_in_context_score_of_a_straight_line);
    tcase_add_test(model, every_byte_reaches_tex_spelled);
    tcase_add_test(model, a_byte_model_decodes_as_its_full_pass);
    tcase_add_test(model, the_biases_start_as_alibis);
    suite_add_tcase(suite, model);
    TCase *refused = tcase_create("refused");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, the_bigram_refuses_a_single_byte, SIGABRT);
    tcase_add_test_raise_signal(refused, the_counts_refuse_an_order_beyond_a_key, SIGABRT);
    tcase_add_test_raise_signal(refused, a_model_refuses_an_order_above_its_own, SIGABRT);
    tcase_add_test_raise_signal(refused, the_evaluation_refuses_more_windows_than_the_text_holds,
                                SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
