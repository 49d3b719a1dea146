/* Tests of the lab module (chapter 1): option parsing and its errors, exit status 2 on bad
 * input, atomic files, paths of any length, cleanup on failure and on signals, the numbers
 * file with its macro names, and the memory checks. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lab.h"

static int n_value;
static double rate;
static bool loud;
static const char *name_value;
static const LabOption options[] = {
    { "--n", LAB_INT, &n_value, 1, 100, "size" },
    { "--rate", LAB_DOUBLE, &rate, 0, 1, "rate" },
    { "--loud", LAB_FLAG, &loud, 0, 0, "loud" },
    { "--name", LAB_STRING, &name_value, 0, 0, "name" },
    { NULL, LAB_FLAG, NULL, 0, 0, NULL },
};

static int parse(int argc, char **argv, char *error)
{
    Lab lab = { .slug = "test", .out_dir = "generated", .seed = 1 };
    n_value = 7;
    rate = 0.5;
    loud = false;
    return lab_parse(&lab, argc, argv, options, error, 256);
}

START_TEST(good_options_are_stored)
{
    char error[256];
    char *argv[] = { "p", "--n", "12", "--rate=0.25", "--loud", "--name", "x", "--seed", "9" };
    Lab lab = { .slug = "test", .out_dir = "generated", .seed = 1 };
    ck_assert_int_eq(lab_parse(&lab, 9, argv, options, error, sizeof error), 0);
    ck_assert_int_eq(n_value, 12);
    ck_assert_double_eq(rate, 0.25);
    ck_assert(loud);
    ck_assert_str_eq(name_value, "x");
    ck_assert_uint_eq(lab.seed, 9);
}
END_TEST

START_TEST(bad_options_give_status_two_and_one_line)
{
    char *cases[][3] = {
        { "p", "--bogus", "1" }, { "p", "--n", "abc" }, { "p", "--n", "0" },
        { "p", "--n", "101" }, { "p", "--n", "2.5" }, { "p", "--rate", "nan" },
        { "p", "--n", "1e300" }, { "p", "--loud=yes", "" }, { "p", "--seed", "-1" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char error[256] = "";
        const int argc = cases[c][2][0] ? 3 : 2;
        ck_assert_int_eq(parse(argc, cases[c], error), 2);
        ck_assert(strlen(error) > 0 && strchr(error, '\n') == NULL);
    }
    char error[256];
    char *missing[] = { "p", "--n" };
    ck_assert_int_eq(parse(2, missing, error), 2);
    ck_assert_int_eq(n_value, 7);
    char *help[] = { "p", "--help" };
    ck_assert_int_eq(parse(2, help, error), 1);
}
END_TEST

START_TEST(start_exits_with_two_on_an_unknown_flag)
{
    Lab lab;
    char *argv[] = { "p", "--no-such-flag" };
    lab_start(&lab, "test", "a test", 2, argv, options);
}
END_TEST

START_TEST(start_exits_with_two_when_the_folder_cannot_be_written)
{
    Lab lab;
    char *argv[] = { "p", "--out", "/proc/version/cannot" };
    lab_start(&lab, "test", "a test", 3, argv, options);
}
END_TEST

static char folder[64];

static void make_folder(void)
{
    snprintf(folder, sizeof folder, "/tmp/check-lab-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(folder));
}

static void remove_folder(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    ck_assert_int_eq(system(command), 0);
}

static void read_file(const char *path, char *text, size_t size)
{
    FILE *in = fopen(path, "r");
    ck_assert_ptr_nonnull(in);
    const size_t n = fread(text, 1, size - 1, in);
    text[n] = '\0';
    fclose(in);
}

/* A lab of chapter 2's slug in a fresh folder; finishing it gives its numbers file's text. */
static void start_one_head(Lab *lab)
{
    make_folder();
    static char *argv[] = { "p", "--out", folder };
    lab_start(lab, "one-head", "a test", 3, argv, NULL);
}

static void finish_and_read_numbers(Lab *lab, char *text, size_t size)
{
    ck_assert_int_eq(lab_finish(lab), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/numbers/one-head.tex", folder);
    read_file(path, text, size);
}

START_TEST(finish_writes_macros_and_report_lines)
{
    Lab lab;
    start_one_head(&lab);
    lab_result(&lab, "largest_weight", "%.3f", 0.25);
    lab_result(&lab, "name", "%s", "a_b 50%");
    lab_result(&lab, "count", "%s", "6,703");
    char text[512];
    finish_and_read_numbers(&lab, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadLargestWeight}{0.250}"));
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadName}{a\\_b 50\\%}"));
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadCount}{6{,}703}"));
    remove_folder();
}
END_TEST

START_TEST(gains_are_slow_over_fast_and_the_least_is_named)
{
    Lab lab;
    start_one_head(&lab);
    static const char *const names[3] = { "reads", "sums", "waits" };
    const double slow[3] = { 6.0, 3.0, 1.0 }, fast[3] = { 2.0, 2.0, 0.0 };
    double gain[3];
    ck_assert_int_eq(lab_gains(&lab, "gain", names, 3, slow, fast, gain), 2);
    ck_assert(gain[0] == 3.0 && gain[1] == 1.5 && gain[2] == 0.0);
    char text[512];
    finish_and_read_numbers(&lab, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadGainReads}{3.00}"));
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadGainSums}{1.50}"));
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadGainWaits}{0.00}"));
    ck_assert_ptr_nonnull(strstr(text, "\\newcommand{\\oneHeadGainLeast}{waits}"));
    remove_folder();
}
END_TEST

START_TEST(a_file_appears_only_when_committed)
{
    make_folder();
    char *argv[] = { "p", "--out", folder };
    Lab lab;
    lab_start(&lab, "test", "a test", 3, argv, NULL);
    LabFile file;
    FILE *out = lab_open_data(&lab, &file, "thing");
    fprintf(out, "1 2 3\n");
    char path[128];
    snprintf(path, sizeof path, "%s/data/thing.dat", folder);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(access(file.temporary, F_OK), 0);
    char temporary[256];
    snprintf(temporary, sizeof temporary, "%s", file.temporary);
    lab_commit(&lab, &file);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(temporary, F_OK), 0);
    remove_folder();
}
END_TEST

START_TEST(a_program_that_fails_leaves_no_temporary_file)
{
    make_folder();
    char temporary[1040] = "";
    int channel[2];
    ck_assert_int_eq(pipe(channel), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        char *argv[] = { "p", "--out", folder };
        Lab lab;
        lab_start(&lab, "test", "a test", 3, argv, NULL);
        LabFile file;
        fprintf(lab_open_data(&lab, &file, "half"), "half a file");
        snprintf(temporary, sizeof temporary, "%s", file.temporary);
        if (write(channel[1], temporary, sizeof temporary) < 0)
            _exit(9);
        lab_fail(&lab, "stopping half way");
    }
    ck_assert_int_eq(read(channel[0], temporary, sizeof temporary), (int)sizeof temporary);
    int status = 0;
    waitpid(child, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert(strstr(temporary, "half.dat.tmp.") != NULL);
    ck_assert_int_ne(access(temporary, F_OK), 0);
    char path[128];
    snprintf(path, sizeof path, "%s/data/half.dat", folder);
    ck_assert_int_ne(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/data", folder);     /* created for the file, now empty */
    ck_assert_int_ne(access(path, F_OK), 0);
    close(channel[0]);
    close(channel[1]);
    remove_folder();
}
END_TEST

START_TEST(a_bad_result_key_stops_the_program)
{
    Lab lab = { .slug = "test" };
    lab_result(&lab, "time_n4096", "%d", 1);
}
END_TEST

START_TEST(a_repeated_result_key_stops_the_program)
{
    Lab lab = { .slug = "test" };
    lab_result(&lab, "speed", "%d", 1);
    lab_result(&lab, "speed", "%d", 2);
}
END_TEST

/* The results array starts with room for 16 and doubles: 40 results cross two doublings, and
 * every one must reach the numbers file in order. */
START_TEST(many_results_all_reach_the_numbers_file)
{
    make_folder();
    char *argv[] = { "p", "--out", folder };
    Lab lab;
    lab_start(&lab, "many", "a test", 3, argv, NULL);
    for (int r = 0; r < 40; r++) {
        char key[8] = { 'k', (char)('a' + r / 26), (char)('a' + r % 26), '\0' };
        lab_result(&lab, key, "%d", r);
    }
    /* lab_finish prints the 40 report lines: send them to /dev/null, then restore stdout */
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
    ck_assert(saved >= 0 && null >= 0 && dup2(null, STDOUT_FILENO) >= 0);
    const int status = lab_finish(&lab);
    fflush(stdout);
    ck_assert(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    close(null);
    ck_assert_int_eq(status, 0);
    char path[128], text[4096];
    snprintf(path, sizeof path, "%s/numbers/many.tex", folder);
    read_file(path, text, sizeof text);
    const char *at = text;
    for (int r = 0; r < 40; r++) {
        char line[64];
        snprintf(line, sizeof line, "\\newcommand{\\manyK%c%c}{%d}\n",
                 (char)('a' + r / 26), (char)('a' + r % 26), r);
        at = strstr(at, line);
        ck_assert_msg(at != NULL, "result %d is missing or out of order", r);
    }
    remove_folder();
}
END_TEST

/* Runs body in a child whose standard error goes to message; returns the wait status. */
static int run_child(void (*body)(void), char *message, size_t size)
{
    int channel[2];
    ck_assert_int_eq(pipe(channel), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(channel[0]);
        if (dup2(channel[1], STDERR_FILENO) < 0)
            _exit(9);
        body();
        _exit(0);
    }
    close(channel[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < size && (got = read(channel[0], message + n, size - 1 - n)) > 0)
        n += (size_t)got;
    message[n] = '\0';
    close(channel[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    return status;
}

static bool folder_is_empty(const char *path)
{
    DIR *dir = opendir(path);
    ck_assert_ptr_nonnull(dir);
    int entries = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;)
        entries += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(dir);
    return entries == 0;
}

START_TEST(integers_and_the_seed_are_decimal_digits_only)
{
    char *refused[][3] = {
        { "p", "--n", "0x10" }, { "p", "--n", "1e1" }, { "p", "--n", "2.0" },
        { "p", "--n", "12abc" }, { "p", "--n", "+5" }, { "p", "--n", " 5" },
        { "p", "--seed", "0x10" }, { "p", "--seed", "1e3" }, { "p", "--seed", "4294967296" },
        { "p", "--seed", "99999999999999999999999" }, { "p", "--seed", "7 " },
    };
    for (size_t c = 0; c < sizeof refused / sizeof refused[0]; c++) {
        char error[256] = "";
        ck_assert_msg(parse(3, refused[c], error) == 2, "%s %s accepted", refused[c][1],
                      refused[c][2]);
        ck_assert(strlen(error) > 0 && strchr(error, '\n') == NULL);
    }
    char error[256];
    char *argv[] = { "p", "--n", "010", "--seed", "4294967295" };
    Lab lab = { .slug = "test", .out_dir = "generated", .seed = 1 };
    ck_assert_int_eq(lab_parse(&lab, 5, argv, options, error, sizeof error), 0);
    ck_assert_int_eq(n_value, 10);
    ck_assert_uint_eq(lab.seed, 4294967295u);
}
END_TEST

START_TEST(given_tells_which_options_were_on_the_command_line)
{
    char error[256];
    char *argv[] = { "p", "--n", "5", "--name", "--rate", "--loud", "--seed=3" };
    Lab lab = { .slug = "test", .out_dir = "generated", .seed = 1 };
    ck_assert_int_eq(lab_parse(&lab, 7, argv, options, error, sizeof error), 0);
    ck_assert(lab_given(&lab, "--n"));
    ck_assert(lab_given(&lab, "--name"));
    ck_assert(!lab_given(&lab, "--rate"));     /* it is the value of --name */
    ck_assert(lab_given(&lab, "--loud"));
    ck_assert(lab_given(&lab, "--seed"));
    ck_assert(!lab_given(&lab, "--out"));
    ck_assert(!lab_given(&lab, "--smoke"));
    char *joined[] = { "p", "--rate=0.1" };
    ck_assert_int_eq(lab_parse(&lab, 2, joined, options, error, sizeof error), 0);
    ck_assert(lab_given(&lab, "--rate"));
    ck_assert(!lab_given(&lab, "--n"));
}
END_TEST

/* A path of about a thousand characters is written whole, not cut at a buffer's end; and a
 * folder given with a final slash is joined without doubling it. */
START_TEST(a_long_output_path_is_written_whole)
{
    make_folder();
    char out[1200];
    int length = snprintf(out, sizeof out, "%s/", folder);
    for (int part = 0; part < 4; part++) {
        memset(out + length, 'a' + part, 240);
        length += 240;
        out[length++] = '/';
    }
    out[length] = '\0';
    char *argv[] = { "p", "--out", out };
    Lab lab;
    lab_start(&lab, "test", "a test", 3, argv, NULL);
    LabFile file;
    fprintf(lab_open_data(&lab, &file, "thing"), "1\n");
    char expected[1300];
    snprintf(expected, sizeof expected, "%sdata/thing.dat", out);
    ck_assert_str_eq(file.path, expected);
    lab_commit(&lab, &file);
    ck_assert_int_eq(access(expected, F_OK), 0);
    remove_folder();
}
END_TEST

static char long_out[4400];

static void open_a_file_whose_name_is_too_long(void)
{
    char *argv[] = { "p", "--out", long_out };
    Lab lab;
    lab_start(&lab, "test", "a test", 3, argv, NULL);
    LabFile file;
    lab_open_data(&lab, &file, "a-name-that-takes-the-path-past-the-limit");
}

/* The folders fit the system's limit on a path, the file's name does not: the program is
 * refused with one line, and the folders it created are removed again. */
START_TEST(a_path_too_long_is_refused_and_leaves_nothing)
{
    make_folder();
    int length = snprintf(long_out, sizeof long_out, "%s", folder);
    while (length < 4060) {
        long_out[length++] = '/';
        memset(long_out + length, 'b', 200);
        length += 200;
    }
    long_out[4060] = '\0';
    static char message[9000];     /* the line names the long path */
    const int status = run_child(open_a_file_whose_name_is_too_long, message, sizeof message);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert_ptr_nonnull(strstr(message, "test: cannot write "));
    ck_assert_ptr_eq(strchr(message, '\n'), message + strlen(message) - 1);
    ck_assert(folder_is_empty(folder));
    remove_folder();
}
END_TEST

static void refuse_options_after_start(void)
{
    char out[128];
    snprintf(out, sizeof out, "%s/out", folder);
    char *argv[] = { "p", "--out", out };
    Lab lab;
    lab_start(&lab, "test", "a test", 3, argv, NULL);
    lab_fail(&lab, "--n-heads 3 does not divide --d-model 32");
}

START_TEST(options_refused_after_start_leave_no_folder)
{
    make_folder();
    char message[512];
    const int status = run_child(refuse_options_after_start, message, sizeof message);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert(folder_is_empty(folder));
    remove_folder();
}
END_TEST

static void stop_by_a_signal_while_writing(void)
{
    char *argv[] = { "p", "--out", folder };
    Lab lab;
    lab_start(&lab, "test", "a test", 3, argv, NULL);
    LabFile file;
    fprintf(lab_open_data(&lab, &file, "half"), "half a file");
    fprintf(stderr, "%s\n", file.temporary);
    fflush(stderr);
    raise(SIGTERM);
    _exit(0);
}

/* SIGTERM skips atexit: the handler removes the temporary file and the folder made for it,
 * then the child dies of the signal as it would have without the handler. */
START_TEST(a_signal_leaves_no_temporary_file)
{
    make_folder();
    char temporary[512];
    const int status = run_child(stop_by_a_signal_while_writing, temporary, sizeof temporary);
    ck_assert(WIFSIGNALED(status));
    ck_assert_int_eq(WTERMSIG(status), SIGTERM);
    ck_assert_ptr_nonnull(strstr(temporary, "half.dat.tmp."));
    *strchr(temporary, '\n') = '\0';
    ck_assert_int_ne(access(temporary, F_OK), 0);
    ck_assert(folder_is_empty(folder));
    remove_folder();
}
END_TEST

static void run_out_of_memory(void)
{
    char *argv[] = { "p", "--out", folder };
    Lab lab;
    lab_start(&lab, "ninety", "a test", 3, argv, NULL);
    memory_alloc(SIZE_MAX / 2, 4);
}

START_TEST(out_of_memory_names_the_program)
{
    make_folder();
    char message[512];
    const int status = run_child(run_out_of_memory, message, sizeof message);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert_msg(strncmp(message, "ninety: out of memory", 21) == 0, "got: %s", message);
    remove_folder();
}
END_TEST

START_TEST(arrays_keep_to_a_quarter_of_the_memory_and_two_gib)
{
    const size_t mib = (size_t)1 << 20, physical = lab_physical_memory();
    unsetenv("LAB_MEMORY_AVAILABLE_MIB");
    const size_t quiet = lab_array_budget(false), bench = lab_array_budget(true);
    ck_assert_uint_le(quiet, (size_t)2048 * mib);
    ck_assert_uint_le(quiet, physical / 4);
    ck_assert_uint_le(bench, physical / 4);
    ck_assert_uint_ge(bench, quiet);
    setenv("LAB_MEMORY_AVAILABLE_MIB", "400", 1);           /* a busy machine */
    ck_assert_uint_eq(lab_memory_available(), 400 * mib);
    ck_assert_uint_eq(lab_array_budget(false), 100 * mib);
    ck_assert_uint_eq(lab_array_budget(true), 100 * mib);
    setenv("LAB_MEMORY_AVAILABLE_MIB", "-5", 1);            /* not a size: ignored */
    ck_assert_uint_gt(lab_memory_available(), 0);
    ck_assert_uint_le(lab_memory_available(), physical);
    unsetenv("LAB_MEMORY_AVAILABLE_MIB");
}
END_TEST

static void ask_for_too_much_memory(void)
{
    Lab lab = { .slug = "cost" };
    lab_require_memory(&lab, 1e18, "--n 1048576 --d 4096");
}

START_TEST(a_need_beyond_physical_memory_is_refused)
{
    ck_assert_uint_gt(lab_physical_memory(), 0);
    Lab lab = { .slug = "cost" };
    lab_require_memory(&lab, 1024.0, "--n 16");     /* fits: returns */
    char message[512];
    const int status = run_child(ask_for_too_much_memory, message, sizeof message);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert_msg(strncmp(message, "cost: --n 1048576 --d 4096 needs 931322574.6 GiB, "
                          "more than this machine's ", 73) == 0, "got: %s", message);
    ck_assert_ptr_eq(strchr(message, '\n'), message + strlen(message) - 1);
}
END_TEST

START_TEST(an_impossible_allocation_exits_with_two)
{
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));   /* its one line */
    memory_alloc(SIZE_MAX / 2, 4);
}
END_TEST

START_TEST(an_unsolved_exercise_exits_with_three)
{
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));   /* its one line */
    exercise_unsolved("9.9", "book/99-test.nw", 1);
}
END_TEST

START_TEST(help_exits_with_zero)
{
    Lab lab;
    char *argv[] = { "p", "--n", "3", "--help" };
    ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));   /* the usage text */
    lab_start(&lab, "test", "a test", 4, argv, options);
}
END_TEST

START_TEST(a_power_law_is_fitted_exactly)
{
    /* y = 3 x^1.5 on the points 1, 2, 4, 8, 16: slope 1.5, intercept ln 3, to rounding */
    double x[5], y[5], slope, intercept;
    for (int k = 0; k < 5; k++) {
        x[k] = (double)(1 << k);
        y[k] = 3.0 * pow(x[k], 1.5);
    }
    lab_fit_power_law(x, y, 5, &slope, &intercept);
    ck_assert_double_eq_tol(slope, 1.5, 1e-12);
    ck_assert_double_eq_tol(intercept, log(3.0), 1e-12);
    /* noise that alternates in sign around y = x^2 leaves the slope near 2 */
    for (int k = 0; k < 5; k++)
        y[k] = x[k] * x[k] * (k % 2 ? 1.1 : 1.0 / 1.1);
    lab_fit_power_law(x, y, 5, &slope, &intercept);
    ck_assert_double_eq_tol(slope, 2.0, 0.05);
}
END_TEST

/* lab_tex_signed's text for one value, in a buffer the caller frees */
static char *signed_text(double value, int decimals)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    ck_assert_ptr_nonnull(out);
    lab_tex_signed(out, value, decimals);
    fclose(out);
    return text;
}

START_TEST(a_signed_number_has_a_minus_sign_and_no_negative_zero)
{
    const struct { double value; int decimals; const char *text; } cases[] = {
        { -0.92, 2, "\\textminus{}0.92" }, { 0.92, 2, "0.92" }, { -0.004, 2, "0.00" },
        { -0.0, 2, "0.00" },                 { -0.006, 2, "\\textminus{}0.01" },
        { -12.5, 1, "\\textminus{}12.5" }, { 3.0, 0, "3" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *text = signed_text(cases[k].value, cases[k].decimals);
        ck_assert_str_eq(text, cases[k].text);
        free(text);
    }
}
END_TEST

Suite *lab_suite(void)
{
    Suite *suite = suite_create("lab");
    TCase *core = tcase_create("options, files, numbers");
    tcase_add_test(core, good_options_are_stored);
    tcase_add_test(core, a_power_law_is_fitted_exactly);
    tcase_add_test(core, bad_options_give_status_two_and_one_line);
    tcase_add_exit_test(core, start_exits_with_two_on_an_unknown_flag, 2);
    tcase_add_exit_test(core, start_exits_with_two_when_the_folder_cannot_be_written, 2);
    tcase_add_test(core, finish_writes_macros_and_report_lines);
    tcase_add_test(core, gains_are_slow_over_fast_and_the_least_is_named);
    tcase_add_test(core, a_file_appears_only_when_committed);
    tcase_add_test(core, a_program_that_fails_leaves_no_temporary_file);
    tcase_add_test_raise_signal(core, a_bad_result_key_stops_the_program, 6);
    tcase_add_test_raise_signal(core, a_repeated_result_key_stops_the_program, 6);
    tcase_add_test(core, many_results_all_reach_the_numbers_file);
    tcase_add_exit_test(core, an_impossible_allocation_exits_with_two, 2);
    tcase_add_exit_test(core, an_unsolved_exercise_exits_with_three, 3);
    tcase_add_exit_test(core, help_exits_with_zero, 0);
    tcase_add_test(core, integers_and_the_seed_are_decimal_digits_only);
    tcase_add_test(core, given_tells_which_options_were_on_the_command_line);
    tcase_add_test(core, a_long_output_path_is_written_whole);
    tcase_add_test(core, a_path_too_long_is_refused_and_leaves_nothing);
    tcase_add_test(core, options_refused_after_start_leave_no_folder);
    tcase_add_test(core, a_signal_leaves_no_temporary_file);
    tcase_add_test(core, out_of_memory_names_the_program);
    tcase_add_test(core, a_need_beyond_physical_memory_is_refused);
    tcase_add_test(core, arrays_keep_to_a_quarter_of_the_memory_and_two_gib);
    tcase_add_test(core, a_signed_number_has_a_minus_sign_and_no_negative_zero);
    suite_add_tcase(suite, core);
    return suite;
}
