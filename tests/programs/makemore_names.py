"""A course-style PyTorch program in the style of the makemore lectures: a character-level
name model three ways, on a small built-in list of names.

1. A bigram model: a count table, then the same table learned as a one-hot linear layer.
2. An MLP (Bengio et al., 2003) with BatchNorm: embedding, flatten, linear, batch norm, tanh.
3. A WaveNet-style hierarchical model (van den Oord et al., 2016): consecutive characters are
   fused two at a time (FlattenConsecutive) through three levels.

Plain PyTorch, run under PyTorch and under tinygrad_norm by tests/compat/test_course_programs.py,
which compares what the two runs save (the command line: oracle_cli.py):
losses per step, every gradient after the first step, sampled names. Data, batches and the
sampling draws come from NumPy's generator, so both runs see the same numbers.
"""

import os

import numpy as np
import oracle_cli  # this folder's command line: --init, --out
import torch
import torch.nn as nn
import torch.nn.functional as F
from makemore_mlp import build_dataset  # lecture 2's (context, next character) pairs

WORDS = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily
elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope
layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah
hazel violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly anna
caroline nova genesis emilia kennedy samantha maya willow kinsley naomi aaliyah elena sarah
ariana allison gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna
valentina isla eliana quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah
arianna vivian kaylee sophie brielle madeline""".split()


class FlattenConsecutive(nn.Module):
    """(B, T, C) -> (B, T // n, C * n): n consecutive characters side by side."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out


class BatchNorm1d(nn.Module):
    """The lecture's batch norm: over the batch (and the time axis of a 3-D input)."""

    def __init__(self, dim, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("running_var", torch.ones(dim))

    def forward(self, x):
        if self.training:
            dim = 0 if x.ndim == 2 else (0, 1)
            xmean = x.mean(dim, keepdim=True)
            xvar = x.var(dim, keepdim=True)
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out


class MLP(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd, n_hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Embedding(vocab_size, n_embd),
            nn.Flatten(),
            nn.Linear(n_embd * block_size, n_hidden, bias=False),
            nn.BatchNorm1d(n_hidden),
            nn.Tanh(),
            nn.Linear(n_hidden, vocab_size),
        )
        with torch.no_grad():
            self.net[-1].weight *= 0.1  # a less confident last layer

    def forward(self, x):
        return self.net(x)


class WaveNet(nn.Module):
    def __init__(self, vocab_size, n_embd, n_hidden):
        super().__init__()
        layers = [nn.Embedding(vocab_size, n_embd)]
        fan_in = n_embd
        for _ in range(3):
            layers += [
                FlattenConsecutive(2),
                nn.Linear(fan_in * 2, n_hidden, bias=False),
                BatchNorm1d(n_hidden),
                nn.Tanh(),
            ]
            fan_in = n_hidden
        layers.append(nn.Linear(n_hidden, vocab_size))
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def bigram_counts(words, stoi, itos, rng, results):
    N = torch.zeros((27, 27), dtype=torch.int32)
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            N[stoi[ch1], stoi[ch2]] += 1
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    log_likelihood, n = 0.0, 0
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            log_likelihood += torch.log(P[stoi[ch1], stoi[ch2]])
            n += 1
    results["counts_nll"] = (-log_likelihood / n).item()
    names = []
    for _ in range(5):
        ix, out = 0, []
        while True:
            p = P[ix]
            ix = int(rng.choice(27, p=(p / p.sum()).numpy()))
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    results["counts_samples"] = np.array(names)


def bigram_neural(words, stoi, W, steps, results):
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    xs, ys = torch.tensor(xs), torch.tensor(ys)
    num = xs.nelement()
    losses = []
    for k in range(steps):
        xenc = F.one_hot(xs, num_classes=27).to(W.dtype)
        logits = xenc @ W  # log-counts
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        if k == 0:
            results["bigram_grad_W"] = W.grad.numpy().copy()
        W.data += -10 * W.grad
        losses.append(loss.item())
    results["bigram_losses"] = np.array(losses)


def cmp(s, dt, t):
    """The lecture's check of a hand-derived gradient against autograd's."""
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}")
    torch.testing.assert_close(dt, t.grad)


def backprop_ninja(Xtr, Ytr, params, rng, results):
    """One MLP step with every gradient derived by hand (makemore part 4), checked against
    loss.backward(); the hand-derived gradients are saved too."""
    C, W1, b1, W2, b2, bngain, bnbias = params
    n = 32
    ix = torch.from_numpy(rng.integers(0, Xtr.shape[0], size=n))
    Xb, Yb = Xtr[ix], Ytr[ix]
    # forward pass, chunked into smaller steps that are possible to backward one at a time
    emb = C[Xb]  # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
    hprebn = embcat @ W1 + b1  # hidden layer pre-activation
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)  # Bessel's correction
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)  # hidden layer
    logits = h @ W2 + b2  # output layer
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # subtract max for numerical stability
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    for p in params:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv, norm_logits, logit_maxes,
              logits, h, hpreact, bnraw, bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
              embcat, emb]:  # fmt: skip
        t.retain_grad()
    loss.backward()

    with torch.no_grad():  # the manual backward builds no graph
        dlogprobs = torch.zeros_like(logprobs)
        dlogprobs[range(n), Yb] = -1.0 / n
        dprobs = (1.0 / probs) * dlogprobs
        dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
        dcounts = counts_sum_inv * dprobs
        dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
        dcounts += torch.ones_like(counts) * dcounts_sum
        dnorm_logits = counts * dcounts
        dlogits = dnorm_logits.clone()
        dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
        dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
        dh = dlogits @ W2.T
        dW2 = h.T @ dlogits
        db2 = dlogits.sum(0)
        dhpreact = (1.0 - h**2) * dh
        dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
        dbnraw = bngain * dhpreact
        dbnbias = dhpreact.sum(0, keepdim=True)
        dbndiff = bnvar_inv * dbnraw
        dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
        dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
        dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
        dbndiff += (2 * bndiff) * dbndiff2
        dhprebn = dbndiff.clone()
        dbnmeani = (-dbndiff).sum(0)
        dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
        dembcat = dhprebn @ W1.t()
        dW1 = embcat.t() @ dhprebn
        db1 = dhprebn.sum(0)
        demb = dembcat.view(emb.shape)
        dC = torch.zeros_like(C)
        for k in range(Xb.shape[0]):
            for j in range(Xb.shape[1]):
                ix = Xb[k, j]
                dC[ix] += demb[k, j]

    cmp("logprobs", dlogprobs, logprobs)
    cmp("counts_sum_inv", dcounts_sum_inv, counts_sum_inv)
    cmp("logit_maxes", dlogit_maxes, logit_maxes)
    cmp("logits", dlogits, logits)
    cmp("bnvar_inv", dbnvar_inv, bnvar_inv)
    cmp("hprebn", dhprebn, hprebn)
    cmp("emb", demb, emb)
    for name, d, p in (("C", dC, C), ("W1", dW1, W1), ("b1", db1, b1), ("W2", dW2, W2),
                       ("b2", db2, b2), ("bngain", dbngain, bngain), ("bnbias", dbnbias, bnbias)):  # fmt: skip
        cmp(name, d, p)
        results[f"ninja_grad_{name}"] = d.numpy()
    results["ninja_loss"] = loss.item()


def train(name, model, Xtr, Ytr, steps, batch_size, rng, results):
    losses = []
    for i in range(steps):
        ix = torch.from_numpy(rng.integers(0, Xtr.shape[0], size=batch_size))
        Xb, Yb = Xtr[ix], Ytr[ix]
        logits = model(Xb)
        loss = F.cross_entropy(logits, Yb)
        for p in model.parameters():
            p.grad = None
        loss.backward()
        if i == 0:
            for pname, p in model.named_parameters():
                results[f"{name}_grad_{pname}"] = p.grad.detach().cpu().numpy()
        lr = 0.1 if i < steps // 2 else 0.01
        for p in model.parameters():
            p.data += -lr * p.grad
        losses.append(loss.item())
    results[f"{name}_losses"] = np.array(losses)
    for bname, b in model.named_buffers():
        results[f"{name}_buffer_{bname}"] = b.numpy()


@torch.no_grad()
def split_loss(model, X, Y):
    model.eval()
    loss = F.cross_entropy(model(X), Y)
    model.train()
    return loss.item()


@torch.no_grad()
def sample(model, itos, block_size, rng, n):
    model.eval()
    names = []
    for _ in range(n):
        out, context = [], [0] * block_size
        while True:
            logits = model(torch.tensor([context]))
            probs = F.softmax(logits, dim=1)
            ix = int(rng.choice(probs.shape[1], p=probs[0].numpy() / probs[0].numpy().sum()))
            context = context[1:] + [ix]
            if ix == 0 or len(out) >= 12:
                break
            out.append(itos[ix])
        names.append("".join(out))
    model.train()
    return np.array(names)


def main():
    args = oracle_cli.parse_args(steps=4, dtype="float64")
    torch.set_default_dtype(getattr(torch, args.dtype))
    torch.manual_seed(2147483647)
    rng = np.random.default_rng(42)

    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size = len(itos)
    assert vocab_size == 27, vocab_size
    words = list(WORDS)
    rng.shuffle(words)
    n1 = int(0.8 * len(words))

    W = torch.randn((27, 27), requires_grad=True)
    mlp = MLP(vocab_size, block_size=3, n_embd=6, n_hidden=32)
    wavenet = WaveNet(vocab_size, n_embd=6, n_hidden=24)
    if args.init and os.path.exists(args.init):
        state = torch.load(args.init)
        with torch.no_grad():
            W.copy_(state["bigram"])
        mlp.load_state_dict(state["mlp"])
        wavenet.load_state_dict(state["wavenet"])
    elif args.init:
        torch.save(
            {"bigram": W, "mlp": mlp.state_dict(), "wavenet": wavenet.state_dict()}, args.init
        )
    print(f"parameters: mlp {sum(p.nelement() for p in mlp.parameters())}, "
          f"wavenet {sum(p.numel() for p in wavenet.parameters())}")  # fmt: skip

    results = {}
    g = np.random.default_rng(7)  # the backprop-ninja MLP's weights, from NumPy
    C = torch.tensor(g.standard_normal((vocab_size, 6)))
    W1 = torch.tensor(g.standard_normal((3 * 6, 32)) * (5 / 3) / (3 * 6) ** 0.5)
    b1 = torch.tensor(g.standard_normal(32) * 0.1)
    W2 = torch.tensor(g.standard_normal((32, vocab_size)) * 0.1)
    b2 = torch.tensor(g.standard_normal(vocab_size) * 0.1)
    bngain = torch.tensor(g.standard_normal((1, 32)) * 0.1 + 1.0)
    bnbias = torch.tensor(g.standard_normal((1, 32)) * 0.1)
    params = [C, W1, b1, W2, b2, bngain, bnbias]
    for p in params:
        p.requires_grad = True
    bigram_counts(words, stoi, itos, rng, results)
    bigram_neural(words, stoi, W, args.steps, results)

    Xtr, Ytr = build_dataset(words[:n1], stoi, 3)
    backprop_ninja(
        Xtr,
        Ytr,
        [p.to(torch.get_default_dtype()).detach().requires_grad_() for p in params],
        rng,
        results,
    )
    for name, model, block_size in (("mlp", mlp, 3), ("wavenet", wavenet, 8)):
        Xtr, Ytr = build_dataset(words[:n1], stoi, block_size)
        Xdev, Ydev = build_dataset(words[n1:], stoi, block_size)
        train(name, model, Xtr, Ytr, args.steps, 32, rng, results)
        results[f"{name}_dev_loss"] = split_loss(model, Xdev, Ydev)
        results[f"{name}_samples"] = sample(model, itos, block_size, rng, 5)
        print(name, f"dev loss {results[f'{name}_dev_loss']:.4f}", *results[f"{name}_samples"])
    np.savez(args.out, **results)


if __name__ == "__main__":
    main()
