/* Tests of the memory module (appendix A): memory_alloc gives zeroed memory for any count,
 * zero included, starting on a line of MEMORY_ALIGNMENT bytes; a count whose bytes do not fit in size_t, or that the machine cannot give,
 * stops the program with status 2 and one line that names the program (a default name until
 * one is given). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "memory.h"

START_TEST(allocations_are_zeroed_and_zero_counts_give_memory)
{
    const size_t counts[] = { 0, 1, 7, 4096 };
    for (int k = 0; k < 4; k++) {
        unsigned char *bytes = memory_alloc(counts[k], sizeof(double));
        ck_assert_ptr_nonnull(bytes);
        ck_assert_uint_eq((uintptr_t)bytes % MEMORY_ALIGNMENT, 0);
        for (size_t b = 0; b < counts[k] * sizeof(double); b++)
            ck_assert_uint_eq(bytes[b], 0);
        free(bytes);
    }
    void *empty = memory_alloc(5, 0);       /* a size of zero: still memory to free */
    ck_assert_ptr_nonnull(empty);
    free(empty);
}
END_TEST

/* Sizes that are not whole lines, among allocations that stay alive, so that the C library
 * cannot hand back the same place each time; and one large enough to ask for huge pages. */
START_TEST(every_allocation_starts_on_a_line)
{
    enum { KEPT = 40 };
    float *kept[KEPT];
    for (int k = 0; k < KEPT; k++) {
        kept[k] = memory_alloc((size_t)(3 * k + 1), sizeof(float));
        ck_assert_uint_eq((uintptr_t)kept[k] % MEMORY_ALIGNMENT, 0);
        kept[k][3 * k] = 1.0f;              /* the last number asked for is there */
    }
    for (int k = 0; k < KEPT; k++)
        free(kept[k]);
    const size_t large = ((size_t)64 << 20) / sizeof(float) + 5;
    float *big = memory_alloc(large, sizeof *big);
    ck_assert_uint_eq((uintptr_t)big % MEMORY_ALIGNMENT, 0);
    ck_assert(big[0] == 0.0f && big[large / 2] == 0.0f && big[large - 1] == 0.0f);
    free(big);
}
END_TEST

/* Runs an allocation that cannot succeed in a child, with its standard error into a pipe;
 * returns the child's status and its first line of output. */
static int failing_child(const char *name, size_t count, char *line, size_t room)
{
    int pipe_ends[2];
    ck_assert_int_eq(pipe(pipe_ends), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        dup2(pipe_ends[1], STDERR_FILENO);
        close(pipe_ends[0]);
        memory_name_program(name);
        memory_alloc(count, 4);
        _exit(0);
    }
    close(pipe_ends[1]);
    const ssize_t got = read(pipe_ends[0], line, room - 1);
    line[got > 0 ? got : 0] = '\0';
    close(pipe_ends[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return status;
}

START_TEST(an_impossible_allocation_names_the_program_and_exits_with_two)
{
    char line[256];
    int status = failing_child(NULL, SIZE_MAX / 2, line, sizeof line);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert_msg(strncmp(line, "attention: out of memory: ", 26) == 0, "got: %s", line);
    ck_assert_ptr_eq(strchr(line, '\n'), line + strlen(line) - 1);
    status = failing_child("scaling", SIZE_MAX / 2, line, sizeof line);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    ck_assert_msg(strstr(line, "scaling: out of memory: ") == line, "got: %s", line);
    ck_assert_msg(strstr(line, "do not fit in size_t") != NULL, "got: %s", line);
}
END_TEST

Suite *memory_suite(void)
{
    Suite *suite = suite_create("memory");
    TCase *core = tcase_create("allocation");
    tcase_add_test(core, allocations_are_zeroed_and_zero_counts_give_memory);
    tcase_add_test(core, every_allocation_starts_on_a_line);
    tcase_add_test(core, an_impossible_allocation_names_the_program_and_exits_with_two);
    suite_add_tcase(suite, core);
    return suite;
}
