"""PyTorch's randperm (for n below 2**32 / 20): Fisher-Yates from the front.

Start from r = 0, 1, ..., n - 1; for i = 0, ..., n - 2 draw a word w_i, let
j_i = i + w_i % (n - i) (so j_i >= i) and swap r[i] with r[j_i].

`fisher_yates_reference` does exactly that, one swap at a time in Python. `fisher_yates` gives
the same permutation without a loop over the swaps. The words do not depend on the
permutation, so all the targets j are known first, and then:

- step i is the last step to touch position i (later steps k > i touch k and j_k >= k), so
  the final r[i] is the value at position j_i just before step i;
- before step k, a position p >= k holds p unless an earlier step m < k had j_m = p, in which
  case it holds what the last such step moved there: the value at position m just before
  step m. Call that value V(m);
- so V(i) = V(A(i)) with A(i) the last step m < i with j_m = i, or V(i) = i when there is
  none, and the final r[i] = V(B(i)) with B(i) the last step m < i with j_m = j_i, or j_i
  when there is none (r[n - 1] = V(n - 1)).

One sort of the steps by their target j (then step) gives B (the step before in the same target
group) and A (the last step of target group i that is not i itself). A points to an earlier
step, so following A ends at a step without one, whose V is itself: pointer jumping
(A <- A[A]) finds every chain's end in about log2(chain length) vectorised passes.
"""

from __future__ import annotations

import numpy as np


def fisher_yates_reference(targets: np.ndarray) -> np.ndarray:
    """The permutation of 0..n-1 (n = len(targets) + 1) after swapping r[i] with
    r[targets[i]] for i = 0, 1, ..., in a Python loop."""
    order = list(range(len(targets) + 1))
    for i, j in enumerate(targets.tolist()):
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def fisher_yates(targets: np.ndarray) -> np.ndarray:
    """The same permutation as `fisher_yates_reference(targets)` (targets[i] >= i), vectorised."""
    steps, n = len(targets), len(targets) + 1
    positions = np.arange(n, dtype=np.int32)  # n < 2**31: int32 halves the memory traffic
    if steps == 0:
        return positions.astype(np.int64)
    targets = targets.astype(np.int32)
    # the steps grouped by target, in step order within a group: one sort of target * 2**32
    # + step (n < 2**32, the keys are distinct)
    keys = np.left_shift(targets, 32, dtype=np.int64)
    keys |= positions[:steps]
    keys.sort()
    by_target, sorted_targets = keys.astype(np.int32), (keys >> 32).astype(np.int32)
    group_ends = np.empty(steps, bool)
    np.not_equal(sorted_targets[1:], sorted_targets[:-1], out=group_ends[:-1])
    group_ends[-1] = True
    previous = np.empty(steps, np.int32)  # in sorted order: the step before in the group
    previous[0] = -1
    np.copyto(previous[1:], np.where(group_ends[:-1], -1, by_target[:-1]))
    before = np.empty(steps, np.int32)  # B, in step order
    np.put(before, by_target, previous)
    ends = np.flatnonzero(group_ends)
    earlier = np.full(n, -1, np.int32)  # the last step into position p ...
    np.put(earlier, sorted_targets.take(ends), by_target.take(ends))
    is_self = earlier[:steps] == positions[:steps]  # ... but step p itself: A
    np.copyto(earlier[:steps], before, where=is_self)
    chain = np.where(earlier >= 0, earlier, positions)  # V(p) = V(chain[p]) until chain[p] = p
    while True:
        jumped = chain.take(chain)
        if np.array_equal(jumped, chain):
            break
        chain = jumped
    result = np.empty(n, np.int64)
    result[:steps] = np.where(before >= 0, chain.take(np.maximum(before, 0)), targets)
    result[steps] = chain[steps]
    return result
