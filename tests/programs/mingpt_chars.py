"""A course-style PyTorch program: a character-level GPT in the style of minGPT and nanoGPT.

A config dataclass, CausalSelfAttention with a registered tril buffer and masked_fill, Block,
GPT with weight tying and nanoGPT's configure_optimizers (AdamW parameter groups), a Trainer
with a DataLoader over a character Dataset, gradient clipping, a warmup + cosine learning
rate, and generate() with temperature and top_k.

Plain PyTorch, run under PyTorch and under tinygrad_norm by tests/compat/test_course_programs.py,
which compares what the two runs save (the command line: oracle_cli.py). The
batch order (a Sampler) and the sampling draws come from NumPy's generator.
"""

import inspect
import math
import os
from dataclasses import dataclass

import numpy as np
import oracle_cli  # this folder's command line: --init, --out
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

TEXT = """First Citizen: Before we proceed any further, hear me speak.
All: Speak, speak.
First Citizen: You are all resolved rather to die than to famish?
All: Resolved. resolved.
First Citizen: First, you know Caius Marcius is chief enemy to the people.
"""


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 65
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    dropout: float = 0.0
    bias: bool = True


class NewGELU(nn.Module):
    """GELU as in Google BERT and OpenAI GPT (Hendrycks et al., 2016)."""

    def forward(self, x):
        return (
            0.5
            * x
            * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
        )


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        # causal mask to ensure that attention is only applied to the left in the input sequence
        self.register_buffer(
            "bias",
            torch.tril(torch.ones(config.block_size, config.block_size)).view(
                1, 1, config.block_size, config.block_size
            ),
        )

    def forward(self, x):
        B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        # (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs
        return self.resid_dropout(self.c_proj(y))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = nn.ModuleDict(
            dict(
                c_fc=nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias),
                c_proj=nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias),
                act=NewGELU(),
                dropout=nn.Dropout(config.dropout),
            )
        )
        m = self.mlp
        self.mlpf = lambda x: m.dropout(m.c_proj(m.act(m.c_fc(x))))  # MLP forward

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlpf(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.vocab_size is not None
        assert config.block_size is not None
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):  # scaled init of the residual projections (GPT-2)
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)
        tok_emb = self.transformer.wte(idx)  # token embeddings of shape (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # position embeddings of shape (t, n_embd)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
        else:
            logits = self.lm_head(x[:, [-1], :])  # only the last position: (b, 1, vocab)
            loss = None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        # every 2-D parameter (matmul weights, embeddings) decays; biases and layernorms don't
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {"params": decay_params, "weight_decay": weight_decay},
            {"params": nodecay_params, "weight_decay": 0.0},
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print(
            f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters"
        )
        print(
            f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters"
        )
        fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == "cuda"
        extra_args = dict(fused=True) if use_fused else dict()
        optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
        return optimizer

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, rng=None):
        """Continue idx (b, t) by max_new_tokens tokens: greedy when rng is None, else drawn
        from the (top_k) softmax with NumPy's generator."""
        for _ in range(max_new_tokens):
            idx_cond = (
                idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size :]
            )
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            if rng is None:
                _, idx_next = torch.topk(probs, k=1, dim=-1)
            else:
                p = probs.cpu().numpy()
                idx_next = torch.tensor([[rng.choice(p.shape[1], p=row / row.sum())] for row in p])
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


class CharDataset(Dataset):
    """Chunks of block_size + 1 characters: x is the chunk, y the chunk shifted by one."""

    def __init__(self, data, block_size):
        chars = sorted(list(set(data)))
        self.stoi = {ch: i for i, ch in enumerate(chars)}
        self.itos = {i: ch for i, ch in enumerate(chars)}
        self.block_size = block_size
        self.vocab_size = len(chars)
        self.data = data

    def __len__(self):
        return len(self.data) - self.block_size

    def __getitem__(self, idx):
        chunk = self.data[idx : idx + self.block_size + 1]
        dix = [self.stoi[s] for s in chunk]
        x = torch.tensor(dix[:-1], dtype=torch.long)
        y = torch.tensor(dix[1:], dtype=torch.long)
        return x, y


class NumpyRandomSampler(Sampler):
    """Random indices with replacement, drawn by NumPy (so every framework sees the same)."""

    def __init__(self, data_source, num_samples, seed):
        self.data_source = data_source
        self.num_samples = num_samples
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        return iter(self.rng.integers(0, len(self.data_source), size=self.num_samples).tolist())

    def __len__(self):
        return self.num_samples


class Trainer:
    def __init__(self, config, model, train_dataset):
        self.config = config
        self.model = model
        self.train_dataset = train_dataset
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = self.model.to(self.device)
        print("running on device", self.device)
        self.iter_num = 0
        self.losses = []
        self.first_grads = None

    def get_lr(self, it):
        c = self.config
        if it < c.warmup_iters:  # linear warmup
            return c.learning_rate * (it + 1) / (c.warmup_iters + 1)
        decay_ratio = (it - c.warmup_iters) / (c.max_iters - c.warmup_iters)
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))  # cosine from 1 to 0
        return c.min_lr + coeff * (c.learning_rate - c.min_lr)

    def run(self):
        model, config = self.model, self.config
        self.optimizer = model.configure_optimizers(
            config.weight_decay, config.learning_rate, config.betas, self.device
        )
        train_loader = DataLoader(
            self.train_dataset,
            sampler=NumpyRandomSampler(
                self.train_dataset, config.max_iters * config.batch_size, config.seed
            ),
            shuffle=False,
            pin_memory=True,
            batch_size=config.batch_size,
            num_workers=config.num_workers,
        )
        model.train()
        data_iter = iter(train_loader)
        while True:
            try:
                batch = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                batch = next(data_iter)
            batch = [t.to(self.device) for t in batch]
            x, y = batch
            lr = self.get_lr(self.iter_num)
            for param_group in self.optimizer.param_groups:
                param_group["lr"] = lr
            logits, self.loss = model(x, y)
            model.zero_grad(set_to_none=True)
            self.loss.backward()
            if self.first_grads is None:
                self.first_grads = {
                    n: p.grad.detach().cpu().numpy() for n, p in model.named_parameters()
                }
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_norm_clip)
            self.optimizer.step()
            self.losses.append(self.loss.item())
            if self.iter_num % 2 == 0:
                print(f"iter {self.iter_num}: loss {self.loss.item():.5f} lr {lr:.2e}")
            self.iter_num += 1
            if self.iter_num >= config.max_iters:
                break


@dataclass
class TrainConfig:
    max_iters: int = 6
    batch_size: int = 4
    learning_rate: float = 1e-2
    min_lr: float = 1e-3
    warmup_iters: int = 2
    betas: tuple = (0.9, 0.95)
    weight_decay: float = 0.1
    grad_norm_clip: float = 1.0
    num_workers: int = 0
    seed: int = 1337


def main():
    args = oracle_cli.parse_args(steps=6, dtype="float64")
    torch.set_default_dtype({"float64": torch.float64, "float32": torch.float32}[args.dtype])
    torch.manual_seed(1337)

    train_dataset = CharDataset(TEXT, block_size=16)
    config = GPTConfig(block_size=16, vocab_size=train_dataset.vocab_size)
    model = GPT(config)
    if args.init and os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init, map_location="cpu", weights_only=True))
    elif args.init:
        torch.save(model.state_dict(), args.init)
    print("number of parameters: %.2fK" % (model.get_num_params() / 1e3,))
    assert model.lm_head.weight is model.transformer.wte.weight

    trainer = Trainer(TrainConfig(max_iters=args.steps), model, train_dataset)
    trainer.run()

    model.eval()
    context = "First "
    x = torch.tensor([train_dataset.stoi[s] for s in context], dtype=torch.long)[None, ...]
    greedy = model.generate(x, 12)[0]
    rng = np.random.default_rng(0)
    sampled = model.generate(x, 12, temperature=0.8, top_k=5, rng=rng)[0]
    print(repr("".join(train_dataset.itos[int(i)] for i in sampled)))
    with torch.no_grad():
        xs = torch.stack([train_dataset[i][0] for i in range(0, 40, 10)])
        ys = torch.stack([train_dataset[i][1] for i in range(0, 40, 10)])
        _, eval_loss = model(xs, ys)

    results = {f"grad_{n}": g for n, g in trainer.first_grads.items()}
    results["losses"] = np.array(trainer.losses)
    results["eval_loss"] = eval_loss.item()
    results["greedy"] = greedy.numpy()
    results["sampled"] = sampled.numpy()
    results.update({f"weight_{k}": v.numpy() for k, v in model.state_dict().items()})
    np.savez(args.out, **results)


if __name__ == "__main__":
    main()
