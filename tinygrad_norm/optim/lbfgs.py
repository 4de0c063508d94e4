"""L-BFGS: a quasi-Newton method that calls the loss several times per step (PyTorch's rules).

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss
    optimizer.step(closure)

All parameters are seen as one flat vector w with gradient g. Each iteration picks a
direction d = -H g, where H approximates the inverse Hessian from the last `history_size`
pairs (s = step taken, y = change of gradient) by the two-loop recursion (Nocedal and Wright,
Algorithm 7.4), scaled by H_diag = s·y / y·y. It then moves w <- w + t·d: with a fixed
t = lr (the first iteration: lr · min(1, 1 / |g|₁)), or with line_search_fn="strong_wolfe",
a t found by bracketing and cubic interpolation that satisfies the strong Wolfe conditions
(sufficient decrease, c1 = 1e-4, and curvature, c2 = 0.9; Algorithms 3.5 and 3.6).
The stopping rules, tolerances and counts are PyTorch's, so trajectories agree.
"""

from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import enable_grad
from .lbfgs_search import strong_wolfe
from .optimizer import Optimizer, param_array


class LBFGS(Optimizer):
    """`LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)`; step(closure) only."""

    def __init__(
        self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
        tolerance_change=1e-9, history_size=100, line_search_fn=None,
    ):  # fmt: skip
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("LBFGS: only 'strong_wolfe' is supported as line_search_fn")
        max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
        defaults = dict(
            lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change, history_size=history_size,
            line_search_fn=line_search_fn,
        )  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError(
                "LBFGS doesn't support per-parameter options (parameter groups); pass one list"
            )
        self._params = self.param_groups[0]["params"]

    # --- the parameters as one flat vector --------------------------------------------------
    def _flat_grad(self) -> np.ndarray:
        return np.concatenate(
            [
                np.zeros(p.numel(), p.array.dtype) if p.grad is None else p.grad.array.reshape(-1)
                for p in self._params
            ]
        )

    def _add(self, t: float, d: np.ndarray) -> None:
        """w <- w + t·d."""
        offset = 0
        for p in self._params:
            n = p.numel()
            param_array(p)[...] += t * d[offset : offset + n].reshape(p.shape)
            p._bump_version()
            offset += n

    def _values(self) -> list:
        return [param_array(p).copy() for p in self._params]

    def _set(self, values) -> None:
        for p, v in zip(self._params, values):
            param_array(p)[...] = v
            p._bump_version()

    def _evaluate(self, closure, x, t, d):
        """(loss, gradient) at x + t·d; the parameters are put back to x afterwards."""
        self._add(t, d)
        with enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        self._set(x)
        return loss, grad

    def step(self, closure):
        """Up to max_iter iterations (max_eval loss evaluations); returns the first loss."""
        if closure is None:
            raise RuntimeError("LBFGS.step needs a closure that recomputes the loss")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -g, [], [], [], 1
            else:
                y, s = g - prev_g, d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == group["history_size"]:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y), old_stps.append(s), ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                d = _two_loop(-g, old_dirs, old_stps, ro, h_diag)
            prev_g, prev_loss = g.copy(), loss
            t = min(1.0, 1.0 / np.abs(g).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = g.dot(d)
            if gtd > -tol_change:  # not a descent direction
                break
            evals = 0
            if group["line_search_fn"] is not None:
                x = self._values()
                loss, g, t, evals = strong_wolfe(
                    lambda x, t, d: self._evaluate(closure, x, t, d), x, t, d, loss, g, gtd
                )
                self._add(t, d)
                done = np.abs(g).max() <= tol_grad
            else:
                self._add(t, d)
                done = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    g = self._flat_grad()
                    done, evals = np.abs(g).max() <= tol_grad, 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval or done:
                break
            if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(
            d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
            prev_flat_grad=prev_g, prev_loss=prev_loss,
        )  # fmt: skip
        return orig_loss


def _two_loop(q, old_dirs, old_stps, ro, h_diag) -> np.ndarray:
    """d = -H g by the two-loop recursion, q starting as -g (Nocedal and Wright, Alg. 7.4)."""
    al = [0.0] * len(old_dirs)
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q = q - al[i] * old_dirs[i]
    r = q * h_diag
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r = r + (al[i] - be_i) * old_stps[i]
    return r
