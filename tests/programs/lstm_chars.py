"""A course-style PyTorch program: an LSTM character language model (char-rnn).

nn.Embedding -> nn.LSTM(batch_first=True, num_layers=2) -> nn.Linear; truncated
backpropagation through time (the hidden state carried across batches, detached); Adam with
a LambdaLR schedule and gradient clipping; the entropy and log-likelihood of the last batch
through torch.distributions.Categorical; sampling one character at a time with the hidden
state, with a temperature.

Plain PyTorch, run under PyTorch and under tinygrad_norm by tests/compat/test_course_programs.py,
which compares what the two runs save (the command line: oracle_cli.py). Batch
positions and sampling draws come from NumPy's generator.
"""

import os

import numpy as np
import oracle_cli  # this folder's command line: --init, --out
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = (
    "the quick brown fox jumps over the lazy dog. "
    "a stitch in time saves nine. "
    "all that glitters is not gold. "
    "the early bird catches the worm. "
) * 3


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers=2, dropout=0.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(
            embed_dim, hidden_size, num_layers=num_layers, batch_first=True, dropout=dropout
        )
        self.fc = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, hidden=None):
        emb = self.embedding(x)  # (B, T, E)
        out, hidden = self.lstm(emb, hidden)  # (B, T, H), ((L, B, H), (L, B, H))
        logits = self.fc(out)  # (B, T, V)
        return logits, hidden

    def init_hidden(self, batch_size, device="cpu"):
        weight = next(self.parameters())
        return (
            weight.new_zeros(self.num_layers, batch_size, self.hidden_size),
            weight.new_zeros(self.num_layers, batch_size, self.hidden_size),
        )


def get_batch(data, starts, seq_len):
    x = torch.stack([data[s : s + seq_len] for s in starts])
    y = torch.stack([data[s + 1 : s + 1 + seq_len] for s in starts])
    return x, y


@torch.no_grad()
def sample(model, stoi, itos, prime, length, temperature, rng, device):
    model.eval()
    hidden = model.init_hidden(1, device)
    x = torch.tensor([[stoi[c] for c in prime]], dtype=torch.long, device=device)
    logits, hidden = model(x, hidden)
    chars = list(prime)
    for _ in range(length):
        probs = F.softmax(logits[0, -1] / temperature, dim=-1).cpu().numpy()
        ix = int(rng.choice(len(probs), p=probs / probs.sum()))
        chars.append(itos[ix])
        logits, hidden = model(torch.tensor([[ix]], device=device), hidden)
    model.train()
    return "".join(chars)


def main():
    args = oracle_cli.parse_args(steps=5, dtype="float64")
    if args.dtype == "float64":
        torch.set_default_dtype(torch.float64)
    torch.manual_seed(42)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    rng = np.random.default_rng(1234)

    chars = sorted(set(TEXT))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for ch, i in stoi.items()}
    data = torch.tensor([stoi[c] for c in TEXT], dtype=torch.long)
    vocab_size, seq_len, batch_size = len(chars), 12, 4

    model = CharLSTM(vocab_size, embed_dim=8, hidden_size=16, num_layers=2).to(device)
    if args.init and os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    elif args.init:
        torch.save(model.state_dict(), args.init)
    print(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1 + 0.2 * step))

    hidden = model.init_hidden(batch_size, device)
    losses, first_grads = [], None
    for step in range(args.steps):
        starts = rng.integers(0, len(data) - seq_len - 1, size=batch_size)
        x, y = get_batch(data, starts, seq_len)
        x, y = x.to(device), y.to(device)
        hidden = tuple(h.detach() for h in hidden)  # truncated BPTT
        logits, hidden = model(x, hidden)
        loss = F.cross_entropy(logits.view(-1, vocab_size), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        if first_grads is None:
            first_grads = {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.4f}")

    with torch.no_grad():  # how unsure the model is about the next character, on the last batch
        dist = torch.distributions.Categorical(logits=logits)
        entropy = dist.entropy().mean().item()
        nll = -dist.log_prob(y).mean().item()  # the same number as the loss
    print(f"entropy {entropy:.4f} nats, nll {nll:.4f}")
    text = sample(model, stoi, itos, "the ", 20, 0.8, rng, device)
    print(repr(text))
    results = {f"grad_{n}": g for n, g in first_grads.items()}
    results.update(losses=np.array(losses), sample=np.array(text), entropy=entropy, nll=nll)
    results.update({f"hidden_{i}": h.detach().numpy() for i, h in enumerate(hidden)})
    results.update({f"state_{k}": v.detach().numpy() for k, v in model.state_dict().items()})
    np.savez(args.out, **results)


if __name__ == "__main__":
    main()
