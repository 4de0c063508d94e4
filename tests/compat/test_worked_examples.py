"""The seed notebooks' computations, retold with `import tinygrad_norm as torch`.

Each test redoes what one seed document computes, through the same PyTorch-style calls the
seed makes (`torch.Tensor(nested list)`, `.size()`, `mean(dim=[-1, -2], keepdim=True)`,
`torch.addmm`, `register_buffer`, ...), and checks the numbers it printed and every
comparison it printed as True. The seeds' own mistakes (SPEC §9) are fixed, not copied.
"""

import math

import numpy as np

import tinygrad_norm as torch
from tinygrad_norm import nn


def close(a, b, tol=5e-5):
    return np.allclose(np.asarray(a), np.asarray(b), atol=tol, rtol=0)


# --- seed 000: layer normalization by hand on an (S, B, E) tensor --------------------------------
def test_seed_000_layer_norm_by_hand_gives_the_printed_numbers():
    inputs = torch.Tensor([[[0.2, 0.1, 0.3], [0.5, 0.1, 0.1]]])
    B, S, E = inputs.size()
    inputs = inputs.reshape(S, B, E)
    assert inputs.size() == (2, 1, 3)

    parameter_shape = inputs.size()[-2:]
    gamma = nn.Parameter(torch.ones(parameter_shape))
    beta = nn.Parameter(torch.zeros(parameter_shape))
    assert gamma.size() == beta.size() == (1, 3)

    dims = [-(i + 1) for i in range(len(parameter_shape))]
    assert dims == [-1, -2]
    mean = inputs.mean(dim=dims, keepdim=True)
    assert mean.size() == (2, 1, 1)
    assert close(mean.flatten(), [0.2000, 0.2333])

    var = ((inputs - mean) ** 2).mean(dim=dims, keepdim=True)
    std = (var + 1e-5).sqrt()
    assert close(std.flatten(), [0.0817, 0.1886])

    y = (inputs - mean) / std
    assert close(y, [[[0.0000, -1.2238, 1.2238]], [[1.4140, -0.7070, -0.7070]]])
    out = gamma * y + beta
    assert close(out, y) and repr(out.grad_fn) == "<AddBackward>"


class LayerNormalization:
    """Seed 000's class, with its bug fixed: forward normalizes its own argument."""

    def __init__(self, parameters_shape, eps=1e-5):
        self.parameters_shape = parameters_shape
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(parameters_shape))
        self.beta = nn.Parameter(torch.zeros(parameters_shape))

    def forward(self, inputs):
        dims = [-(i + 1) for i in range(len(self.parameters_shape))]
        mean = inputs.mean(dim=dims, keepdim=True)
        var = ((inputs - mean) ** 2).mean(dim=dims, keepdim=True)
        std = (var + self.eps).sqrt()
        return self.gamma * ((inputs - mean) / std) + self.beta


def test_seed_000_layer_normalization_class_on_a_sentence_batch():
    torch.manual_seed(0)
    sentence_length, batch_size, embedding_dim = 5, 3, 8
    inputs = torch.randn(sentence_length, batch_size, embedding_dim)
    layer_norm = LayerNormalization(inputs.size()[-1:])
    out = layer_norm.forward(inputs)
    assert out.size() == (5, 3, 8)
    assert close(out.mean(dim=-1), np.zeros((5, 3)), tol=1e-6)
    # Each row is normalized with the biased variance, so its biased std is 1 (up to eps).
    assert close(out.std(dim=-1, unbiased=False), np.ones((5, 3)), tol=1e-4)
    # The seed prints out[0].std() (24 numbers, unbiased) a little above 1: sqrt(24/23) here.
    assert abs(out[0].mean().item()) < 1e-6
    assert close(out[0].std(), math.sqrt(24 / 23), tol=1e-4)
    # Same as the library's LayerNorm.
    assert torch.allclose(out, nn.LayerNorm(embedding_dim)(inputs), atol=1e-6)


# --- seed 001: GPT-2's Conv1D, FeedForward and causal Attention ----------------------------------
class SeedConv1D(nn.Module):
    """Seed 001's Conv1D, written again: addmm on a (-1, nx) view, then back to (..., nf)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        w = torch.empty(nx, nf)
        nn.init.normal_(w, std=0.02)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(*size_out)


class SeedAttention(nn.Module):
    """Seed 001's Attention with both of its bugs fixed: Conv1D(3 * d, d) in GPT-2's (nf, nx)
    order, and the causal mask applied."""

    def __init__(self, d_model, n_head, n_ctx):
        super().__init__()
        self.n_head, self.d_model = n_head, d_model
        self.c_attn = SeedConv1D(d_model * 3, d_model)
        self.c_proj = SeedConv1D(d_model, d_model)
        self.softmax = nn.Softmax(dim=-1)
        self.register_buffer("bias", torch.tril(torch.ones(n_ctx, n_ctx)).view(1, 1, n_ctx, n_ctx))

    def split_heads(self, x):
        new_shape = x.size()[:-1] + (self.n_head, x.size(-1) // self.n_head)
        return x.view(*new_shape).permute(0, 2, 1, 3)  # (B, nh, T, hs)

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()  # (B, T, nh, hs)
        return x.view(*(x.size()[:-2] + (x.size(-2) * x.size(-1),)))  # (B, T, C)

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.d_model, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(v.size(-1))
        T = scores.size(-1)
        scores = scores.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        return self.c_proj(self.merge_heads(torch.matmul(self.softmax(scores), v)))


def test_seed_001_conv1d_is_a_linear_layer_in_gpt2_order():
    torch.manual_seed(0)
    seed_layer, ours = SeedConv1D(6, 4), nn.Conv1D(6, 4)
    ours.load_state_dict(seed_layer.state_dict())
    assert ours.weight.size() == (4, 6)  # (nx, nf)
    x = torch.randn(2, 3, 4)
    assert seed_layer(x).size() == (2, 3, 6)
    assert torch.allclose(seed_layer(x), ours(x), atol=1e-7)


def test_seed_001_feed_forward_and_causal_attention_match_the_library():
    torch.manual_seed(0)
    d_model, n_head, n_ctx = 8, 2, 6
    attention = SeedAttention(d_model, n_head, n_ctx)
    library = nn.Attention(d_model, n_head, n_ctx, attn_pdrop=0.0, resid_pdrop=0.0)
    library.load_state_dict(attention.state_dict(), strict=False)
    x = torch.randn(2, 5, d_model)
    assert torch.allclose(attention(x), library(x), atol=1e-6)

    # The mask is applied: position 2's output ignores positions 3 and 4.
    changed = x.detach().clone()
    changed.data[:, 3:] += 1.0
    assert torch.allclose(attention(changed)[:, :3], attention(x)[:, :3], atol=1e-6)
    assert not torch.allclose(attention(changed)[:, 3:], attention(x)[:, 3:], atol=1e-3)

    c_fc, c_proj = SeedConv1D(4 * d_model, d_model), SeedConv1D(d_model, 4 * d_model)
    ff = nn.FeedForward(d_model, dropout=0.0, approximate="none")
    ff.c_fc.load_state_dict(c_fc.state_dict())
    ff.c_proj.load_state_dict(c_proj.state_dict())
    expected = c_proj(nn.functional.gelu(c_fc(x)))
    assert torch.allclose(ff(x), expected, atol=1e-6)


# --- seed 002: layer norm from scratch with the unbiased variance --------------------------------
def test_seed_002_scratch_layer_norm_with_unbiased_variance():
    gamma, beta, eps = torch.ones((5, 6)), torch.zeros((5, 6)), 1e-5
    torch.manual_seed(42)
    embedding = torch.randint(0, 100, size=(4, 5, 6)).to(torch.float64)
    mean = embedding.mean(-1, keepdims=True)
    var = embedding.var(-1, keepdims=True, unbiased=True)
    embed_layer_norm = (embedding - mean) / torch.sqrt(var + eps) * gamma + beta
    data = embedding.numpy()
    expected = (data - data.mean(-1, keepdims=True)) / np.sqrt(
        data.var(-1, ddof=1, keepdims=True) + eps
    )
    np.testing.assert_allclose(embed_layer_norm.numpy(), expected, rtol=1e-12)


def test_seed_002_pretty_close_is_exactly_the_variance_convention():
    torch.manual_seed(42)
    imgs = torch.rand(3, 4, 5)
    _, H, W = imgs.size()
    library = nn.LayerNorm([H, W])(imgs)
    img_mean = imgs.mean(dim=(-1, -2), keepdims=True)
    unbiased = (imgs - img_mean) / torch.sqrt(imgs.var(dim=(-1, -2), keepdims=True) + 1e-5)
    biased = (imgs - img_mean) / torch.sqrt(
        imgs.var(dim=(-1, -2), keepdims=True, unbiased=False) + 1e-5
    )
    assert not torch.allclose(unbiased, library)  # the seed's "pretty close"
    assert torch.allclose(biased, library, atol=1e-6)  # ddof 0: the same
    # Without eps the two differ by exactly sqrt((N - 1) / N), N = 20 values per image.
    n = H * W
    ratio = np.sqrt(
        imgs.var(dim=(-1, -2), unbiased=False).numpy().astype(np.float64)
        / imgs.var(dim=(-1, -2)).numpy()
    )
    np.testing.assert_allclose(ratio, np.sqrt((n - 1) / n), rtol=1e-5)


# --- seed 003: giagrad's LayerNorm(dimensions=...) -----------------------------------------------
def test_seed_003_nlp_and_image_examples():
    torch.manual_seed(0)
    batch, sentence_length, embedding_dim = 20, 5, 10
    embedding = torch.Tensor.empty(batch, sentence_length, embedding_dim).uniform()
    assert 0 <= embedding.numpy().min() and embedding.numpy().max() < 1
    layer_norm = nn.LayerNorm(dimensions=1)
    out = layer_norm(embedding)
    assert layer_norm.gamma.shape == (10,) and layer_norm.beta is layer_norm.bias
    assert close(out.mean(-1), np.zeros((20, 5)), tol=1e-6)

    N, C, H, W = 20, 5, 10, 10
    images = torch.randn(N, C, H, W)
    layer_norm = nn.LayerNorm(dimensions=3)
    output = layer_norm(images)
    assert output.shape == (N, C, H, W) and layer_norm.gamma.shape == (C, H, W)
    assert torch.allclose(output, nn.LayerNorm([C, H, W])(images), atol=1e-6)


# --- seed 004: the normalization family ----------------------------------------------------------
def test_seed_004_batch_norm():
    torch.manual_seed(0)
    data = torch.randn(2, 3, 4, 4)  # N, C, H, W
    assert nn.BatchNorm2d(3).weight.shape == (3,)
    output_bn = nn.BatchNorm2d(3, affine=False)(data)
    channel_mean = torch.mean(data, keepdim=True, dim=(0, 2, 3))
    channel_var = torch.var(data, dim=(0, 2, 3), unbiased=False, keepdim=True)
    ours = (data - channel_mean) / torch.sqrt(channel_var + 1e-5)
    assert torch.allclose(ours, output_bn, atol=1e-6)


def test_seed_004_layer_instance_and_group_norm():
    torch.manual_seed(0)
    batch_size, time_steps, embedding_dim = 2, 3, 4
    input_data = torch.randn(batch_size, time_steps, embedding_dim)  # N, L, C

    layer = nn.LayerNorm(embedding_dim, elementwise_affine=False)(input_data)
    mean = torch.mean(input_data, dim=-1, keepdim=True)
    var = torch.var(input_data, dim=-1, keepdim=True, unbiased=False)
    assert mean.shape == (2, 3, 1)
    assert torch.allclose((input_data - mean) / torch.sqrt(var + 1e-5), layer, atol=1e-6)
    assert nn.LayerNorm([5, 10, 10])(torch.randn(20, 5, 10, 10)).shape == (20, 5, 10, 10)

    instance = nn.InstanceNorm1d(embedding_dim)(input_data.transpose(-1, -2)).transpose(-1, -2)
    mean = torch.mean(input_data, dim=1, keepdim=True)
    var = torch.var(input_data, dim=1, keepdim=True, unbiased=False)
    assert mean.shape == (2, 1, 4)
    assert torch.allclose(instance, (input_data - mean) / torch.sqrt(var + 1e-5), atol=1e-6)

    # The seed splits into chunks of size num_groups; chunks of C // num_groups channels are
    # the groups. The two agree only when C = num_groups ** 2, as in the seed's GroupNorm(2, 4);
    # GroupNorm(3, 6) shows the difference matters.
    for num_groups, channels in [(2, 4), (3, 6)]:
        data = input_data if channels == embedding_dim else torch.randn(2, 5, channels)
        group = nn.GroupNorm(num_groups, channels, affine=False)(data.transpose(-1, -2))
        pieces = []
        for chunk in torch.split(data, channels // num_groups, dim=-1):
            m = torch.mean(chunk, dim=(1, 2), keepdim=True)
            v = torch.var(chunk, dim=(1, 2), keepdim=True, unbiased=False)
            pieces.append((chunk - m) / torch.sqrt(v + 1e-5))
        assert len(pieces) == num_groups
        assert torch.allclose(group.transpose(-1, -2), torch.cat(pieces, dim=-1), atol=1e-6)


def test_seed_004_weight_norm():
    torch.manual_seed(0)
    input_data = torch.randn(2, 3, 4)
    linear = nn.Linear(4, 3, bias=False)
    wn_linear = nn.utils.weight_norm(linear)
    output = wn_linear(input_data)
    direction = linear.weight / torch.norm(linear.weight.data, dim=1, keepdim=True)
    wn_weight = linear.weight_g * direction
    assert torch.allclose(output, input_data @ wn_weight.transpose(-1, -2), atol=1e-6)

    magnitude = torch.tensor(
        [linear.weight[i, :].norm() for i in torch.arange(linear.weight.shape[0])],
        dtype=torch.float32,
    ).reshape(linear.weight.shape[0], 1)
    assert close(magnitude, linear.weight_g, tol=1e-6)
    weight_direction = linear.weight / magnitude
    assert close((weight_direction**2).sum(dim=-1), np.ones(3), tol=1e-6)
    assert close(weight_direction * magnitude, linear.weight, tol=1e-6)
    assert [name for name, _ in wn_linear.named_parameters()] == ["weight_g", "weight_v"]
    v_norm = torch.tensor(
        [wn_linear.weight_v[i, :].norm() for i in torch.arange(3)], dtype=torch.float32
    ).unsqueeze(-1)
    assert close(wn_linear.weight_g * wn_linear.weight_v / v_norm, linear.weight, tol=1e-6)
