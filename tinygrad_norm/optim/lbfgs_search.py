"""The strong Wolfe line search of L-BFGS (Nocedal and Wright, Algorithms 3.5 and 3.6, with
PyTorch's constants and safeguards): find a step t along d with

    f(x + t·d) <= f(x) + c1·t·(g·d)          (sufficient decrease)
    |g(x + t·d)·d| <= c2·|g·d|               (curvature)

by first growing t until a bracket [t_lo, t_hi] holds such a point, then shrinking it ("zoom")
with the minimiser of the cubic through both ends' values and slopes.
"""

from __future__ import annotations

import math

import numpy as np


def cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None) -> float:
    """The minimiser of the cubic with values f1, f2 and slopes g1, g2 at x1, x2, kept inside
    `bounds` (default: between x1 and x2); their midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


def strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tol_change=1e-9, max_ls=25):
    """(f_new, g_new, t, evaluations); evaluate(x, t, d) gives (loss, gradient) at x + t·d."""
    d_norm = np.abs(d).max()
    f_new, g_new = evaluate(x, t, d)
    evals, gtd_new = 1, g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done, ls_iter = False, 0
    while ls_iter < max_ls:  # grow t until [t_prev, t] brackets a good step
        too_high = f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev)
        if not too_high and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, bracket_gtd = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if too_high or gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        t_next = cubic_minimum(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10)
        )
        t_prev, f_prev, g_prev, gtd_prev, t = t, f_new, g_new.copy(), gtd_new, t_next
        f_new, g_new = evaluate(x, t, d)
        evals, gtd_new, ls_iter = evals + 1, g_new.dot(d), ls_iter + 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g, bracket_gtd = [0, t], [f, f_new], [g, g_new], [gtd, gtd_new]

    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:  # zoom: shrink the bracket
        if abs(bracket[1] - bracket[0]) * d_norm < tol_change:
            break
        t = cubic_minimum(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:  # too close to an end: move away, or note it
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(x, t, d)
        evals, gtd_new, ls_iter = evals + 1, g_new.dot(d), ls_iter + 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low] = t, f_new
            bracket_g[low], bracket_gtd[low] = g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals
