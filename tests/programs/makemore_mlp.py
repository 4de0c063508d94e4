"""A course-style PyTorch program: a character-level MLP language model (Bengio et al., 2003),
in the style of the makemore lectures. It is plain PyTorch; tests/cli/test_run_command.py runs it
under PyTorch and under `python -m tinygrad_norm run`, and compares what it prints.

The weights come from NumPy with a fixed seed and the batch is the whole data set, so both
runs compute the same numbers; the sampled names at the end use a seeded torch.Generator,
PyTorch's random stream in both frameworks, so they are compared too.
makemore_names.py, the later lectures, imports its `build_dataset`.
"""

import argparse
import sys

import numpy as np
import torch
import torch.nn.functional as F

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "charlotte", "amelia", "harper"]


def build_dataset(words, stoi, block_size):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.5)
    args = parser.parse_args()
    print("argv", sys.argv[1:])

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(42)
    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size, block_size, n_embd, n_hidden = len(itos), 3, 10, 64

    X, Y = build_dataset(WORDS, stoi, block_size)
    X, Y = X.to(device), Y.to(device)
    print("data", X.shape, X.dtype, Y.shape, Y.dtype, X.device)

    rng = np.random.default_rng(2147483647)
    C = torch.tensor(rng.standard_normal((vocab_size, n_embd)), dtype=torch.float32)
    W1 = torch.tensor(rng.standard_normal((block_size * n_embd, n_hidden)) * 0.2).float()
    b1 = torch.zeros(n_hidden, device=device)
    W2 = torch.tensor(rng.standard_normal((n_hidden, vocab_size)) * 0.1, dtype=torch.float32)
    b2 = torch.zeros(vocab_size)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True
    print("parameters", sum(p.nelement() for p in parameters), W1.dtype, W1.size())

    for step in range(args.steps):
        emb = C[X]  # (N, block_size, n_embd)
        h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)  # (N, n_hidden)
        logits = h @ W2 + b2  # (N, vocab_size)
        loss = F.cross_entropy(logits, Y)
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -args.lr * p.grad
        print(f"step {step:3d} loss {loss.item():.4f} grad_norm {W1.grad.norm():.4f}")

    g = torch.Generator().manual_seed(2147483647 + 10)
    with torch.no_grad():
        for _ in range(3):
            out, context = [], [0] * block_size
            while True:
                emb = C[torch.tensor([context])]
                h = torch.tanh(emb.view(1, -1) @ W1 + b1)
                probs = F.softmax(h @ W2 + b2, dim=1)
                ix = torch.multinomial(probs, num_samples=1, generator=g).item()
                context = context[1:] + [ix]
                if ix == 0 or len(out) > 20:
                    break
                out.append(itos[ix])
            print("sample", "".join(out))


if __name__ == "__main__":
    main()
