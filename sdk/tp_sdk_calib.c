/* SDK: calibrated predictions, the efficiency curve's fit (tp_sdk_calib.h). */
#include <tracepipe/tp_sdk_calib.h>

#include <math.h>

static int usable(const tp_calib_sample *s) { return s->measured_us > 0 && s->bound_us >= 0; }

static double kernels_of(double k) { return k >= 1 ? k : 1; }

/* Weighted sums of the normal equations: regressors (k, b), target m,
 * weights 1/m^2 times the IRLS factor of the current curve c (NULL: 1). */
typedef struct sums {
    double kk, kb, bb, km, bm;
    size_t n;
} sums;

/* Residuals below this (relative) weigh as this: the IRLS floor. */
#define CALIB_DELTA 1e-3

static sums sums_of(const tp_calib_sample *s, size_t n, const unsigned char *keep,
                    const tp_calib_curve *c)
{
    sums z = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if ((keep && !keep[i]) || !usable(&s[i]))
            continue;
        double k = kernels_of(s[i].kernels), b = s[i].bound_us, m = s[i].measured_us;
        double w = 1.0 / (m * m);
        if (c) {
            double r = fabs(c->t0_us * k + c->slope * b - m) / m;
            w /= r > CALIB_DELTA ? r : CALIB_DELTA;
        }
        z.kk += w * k * k;
        z.kb += w * k * b;
        z.bb += w * b * b;
        z.km += w * k * m;
        z.bm += w * b * m;
        z.n++;
    }
    return z;
}

/* The weighted least-squares curve of z, with t0 >= 0 and slope >= 0. */
static void solve(const sums *z, tp_calib_curve *c)
{
    double det = z->kk * z->bb - z->kb * z->kb;
    c->t0_us = -1; /* collinear (one size): through the origin or the fixed cost below */
    c->slope = 0;
    if (det > 1e-12 * z->kk * z->bb) {
        c->t0_us = (z->km * z->bb - z->kb * z->bm) / det;
        c->slope = (z->kk * z->bm - z->kb * z->km) / det;
    }
    if (c->t0_us < 0 && z->bb > 0) { /* through the origin: slope alone */
        c->t0_us = 0;
        c->slope = z->bm / z->bb;
    }
    if (c->slope <= 0 || c->t0_us < 0) { /* the fixed cost alone */
        c->slope = 0;
        c->t0_us = z->km / z->kk;
    }
}

static int moved(const tp_calib_curve *a, const tp_calib_curve *b)
{
    return fabs(a->t0_us - b->t0_us) > 1e-12 * (fabs(a->t0_us) + 1e-300) ||
           fabs(a->slope - b->slope) > 1e-12 * (fabs(a->slope) + 1e-300);
}

int tp_calib_fit(const tp_calib_sample *s, size_t n, const unsigned char *keep,
                 tp_calib_curve *c)
{
    sums z = sums_of(s, n, keep, NULL);
    c->t0_us = 0;
    c->slope = 0;
    c->n = z.n;
    if (z.n < 2)
        return 0;
    solve(&z, c); /* least squares of the relative errors, then IRLS towards their L1 */
    for (int it = 0; it < TP_CALIB_IRLS_MAX; it++) {
        tp_calib_curve prev = *c;
        z = sums_of(s, n, keep, &prev);
        solve(&z, c);
        if (!moved(&prev, c))
            break;
    }
    return 1;
}

double tp_calib_predict(const tp_calib_curve *c, double bound_us, double kernels)
{
    return c->t0_us * kernels_of(kernels) + c->slope * bound_us;
}

double tp_calib_gmae(const double *pred, const double *meas, size_t n)
{
    if (n == 0)
        return NAN;
    int zero = 0;
    for (size_t i = 0; i < n; i++)
        zero |= pred[i] == meas[i];
    double sl = 0;
    for (size_t i = 0; i < n; i++)
        sl += log(fabs(pred[i] - meas[i]) / meas[i] + (zero ? 4e-4 : 0));
    return exp(sl / (double)n);
}
