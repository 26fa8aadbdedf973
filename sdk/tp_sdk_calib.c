/* SDK: calibrated predictions, the efficiency curve's fit (tp_sdk_calib.h). */
#include <tracepipe/tp_sdk_calib.h>

#include <math.h>

static int usable(const tp_calib_sample *s) { return s->measured_us > 0 && s->bound_us >= 0; }

static double kernels_of(double k) { return k >= 1 ? k : 1; }

/* Weighted sums of the normal equations, weights 1/m^2: regressors
 * (k, b), target m. */
typedef struct sums {
    double kk, kb, bb, km, bm;
    size_t n;
} sums;

static sums sums_of(const tp_calib_sample *s, size_t n, const unsigned char *keep)
{
    sums z = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if ((keep && !keep[i]) || !usable(&s[i]))
            continue;
        double w = 1.0 / (s[i].measured_us * s[i].measured_us);
        double k = kernels_of(s[i].kernels), b = s[i].bound_us;
        z.kk += w * k * k;
        z.kb += w * k * b;
        z.bb += w * b * b;
        z.km += w * k * s[i].measured_us;
        z.bm += w * b * s[i].measured_us;
        z.n++;
    }
    return z;
}

int tp_calib_fit(const tp_calib_sample *s, size_t n, const unsigned char *keep,
                 tp_calib_curve *c)
{
    sums z = sums_of(s, n, keep);
    c->t0_us = 0;
    c->slope = 0;
    c->n = z.n;
    if (z.n < 2)
        return 0;
    double det = z.kk * z.bb - z.kb * z.kb;
    if (det > 1e-12 * z.kk * z.bb) {
        c->t0_us = (z.km * z.bb - z.kb * z.bm) / det;
        c->slope = (z.kk * z.bm - z.kb * z.km) / det;
    } else {
        c->t0_us = -1; /* collinear (one size): the fixed cost alone below */
    }
    if (c->t0_us < 0 && z.bb > 0) { /* through the origin: slope alone */
        c->t0_us = 0;
        c->slope = z.bm / z.bb;
    }
    if (c->slope <= 0 || (c->t0_us == 0 && c->slope == 0)) { /* the fixed cost alone */
        c->slope = 0;
        c->t0_us = z.km / z.kk;
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
