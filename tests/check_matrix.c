/* Tests of the matrix module (chapter 1): the product against a double-precision triple loop
 * on odd shapes, the transpose, and the fills. */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include "matrix.h"
#include "reference.h"
#include "refusal.h"

/* Chapter 1 passes a Matrix by value as 16 bytes on a 64-bit machine. */
START_TEST(a_matrix_is_sixteen_bytes_on_a_64_bit_machine)
{
    ck_assert(sizeof(void *) != 8 || sizeof(Matrix) == 16);
}
END_TEST

START_TEST(product_matches_a_double_reference_on_odd_shapes)
{
    const int shapes[][3] = { { 1, 1, 1 }, { 3, 5, 7 }, { 17, 1, 9 }, { 31, 13, 29 }, { 8, 64, 3 } };
    Rng rng;
    rng_seed(&rng, 9, 1);
    for (int s = 0; s < 5; s++) {
        const int m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
        Matrix a = matrix_new(m, k), b = matrix_new(k, n), c = matrix_new(m, n);
        matrix_fill_normal(a, &rng, 1.0f);
        matrix_fill_normal(b, &rng, 1.0f);
        matrix_fill(c, 123.0f); /* the product must overwrite, not add */
        matrix_multiply(a, b, c);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double magnitude;
                const double sum = reference_entry(a, b, i, j, &magnitude);
                ck_assert_double_le(fabs(AT(c, i, j) - sum), 1e-6 * magnitude + 1e-12);
            }
        matrix_free(&a);
        matrix_free(&b);
        matrix_free(&c);
    }
}
END_TEST

START_TEST(transpose_swaps_indices_and_twice_is_identity)
{
    Matrix a = matrix_new(3, 5), t = matrix_new(5, 3), back = matrix_new(3, 5);
    for (int k = 0; k < 15; k++)
        a.data[k] = (float)k;
    matrix_transpose(a, t);
    matrix_transpose(t, back);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) {
            ck_assert(AT(t, j, i) == AT(a, i, j));
            ck_assert(AT(back, i, j) == AT(a, i, j));
        }
    matrix_free(&a);
    matrix_free(&t);
    matrix_free(&back);
}
END_TEST

START_TEST(new_is_zero_fill_sets_and_normal_fill_scales)
{
    Matrix m = matrix_new(40, 50);
    for (int k = 0; k < 2000; k++)
        ck_assert(m.data[k] == 0.0f);
    matrix_fill(m, 2.5f);
    for (int k = 0; k < 2000; k++)
        ck_assert(m.data[k] == 2.5f);
    Rng a, b;
    rng_seed(&a, 4, 1);
    rng_seed(&b, 4, 1);
    matrix_fill_normal(m, &a, 0.5f);
    for (int k = 0; k < 2000; k++)
        ck_assert(m.data[k] == 0.5f * (float)rng_normal(&b));
    matrix_free(&m);
    ck_assert_ptr_null(m.data);
    rng_seed(&a, 4, 1);
    rng_seed(&b, 4, 1);
    Matrix n = matrix_new_normal(3, 7, &a, 2.0f);
    ck_assert_int_eq(n.rows, 3);
    ck_assert_int_eq(n.cols, 7);
    for (int k = 0; k < 21; k++)
        ck_assert(n.data[k] == 2.0f * (float)rng_normal(&b));
    matrix_free(&n);
}
END_TEST

START_TEST(loop_order_changes_nothing_bit_for_bit)
{
    /* the chapter's claim: the i,p,j order adds the same terms in the same order as i,j,p */
    Rng rng;
    rng_seed(&rng, 10, 1);
    Matrix a = matrix_new(13, 37), b = matrix_new(37, 11), c = matrix_new(13, 11);
    matrix_fill_normal(a, &rng, 1.0f);
    matrix_fill_normal(b, &rng, 1.0f);
    matrix_multiply(a, b, c);
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 11; j++) {
            float sum = 0.0f;
            for (int p = 0; p < 37; p++)
                sum += AT(a, i, p) * AT(b, p, j);
            ck_assert(AT(c, i, j) == sum);
        }
    matrix_free(&a);
    matrix_free(&b);
    matrix_free(&c);
}
END_TEST

START_TEST(multiply_refuses_shapes_that_do_not_chain)
{
    Matrix a = matrix_new(2, 3), b = matrix_new(4, 2), c = matrix_new(2, 2);
    matrix_multiply(a, b, c);       /* a has 3 columns, b has 4 rows */
    matrix_free(&a);
    matrix_free(&b);
    matrix_free(&c);
}
END_TEST

START_TEST(transpose_refuses_a_target_of_the_wrong_shape)
{
    Matrix a = matrix_new(2, 3), t = matrix_new(2, 3);
    matrix_transpose(a, t);
    matrix_free(&a);
    matrix_free(&t);
}
END_TEST

Suite *matrix_suite(void)
{
    Suite *suite = suite_create("matrix");
    TCase *core = tcase_create("row-major matrices");
    tcase_add_test(core, a_matrix_is_sixteen_bytes_on_a_64_bit_machine);
    tcase_add_test(core, product_matches_a_double_reference_on_odd_shapes);
    tcase_add_test(core, loop_order_changes_nothing_bit_for_bit);
    tcase_add_test(core, transpose_swaps_indices_and_twice_is_identity);
    tcase_add_test(core, new_is_zero_fill_sets_and_normal_fill_scales);
    suite_add_tcase(suite, core);
    TCase *refused = tcase_create("refusals");
    tcase_add_checked_fixture(refused, silence_stderr, NULL);
    tcase_add_test_raise_signal(refused, multiply_refuses_shapes_that_do_not_chain, SIGABRT);
    tcase_add_test_raise_signal(refused, transpose_refuses_a_target_of_the_wrong_shape, SIGABRT);
    suite_add_tcase(suite, refused);
    return suite;
}
