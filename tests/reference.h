/* For the suites that check a matrix product: entry (i, j) of a b computed in double
 * precision, with the sum of the magnitudes of its terms, which bounds how far a float
 * product's rounding may move it. */
#ifndef REFERENCE_H
#define REFERENCE_H
#include <math.h>
#include "matrix.h"

static double reference_entry(Matrix a, Matrix b, int i, int j, double *magnitude)
{
    double sum = 0.0;
    *magnitude = 0.0;
    for (int p = 0; p < a.cols; p++) {
        const double term = (double)AT(a, i, p) * AT(b, p, j);
        sum += term;
        *magnitude += fabs(term);
    }
    return sum;
}
#endif
