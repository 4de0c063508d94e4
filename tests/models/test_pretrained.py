"""GPT-2 weights people already have: the byte-level BPE tokenizer, GPT.from_pretrained of a
Hugging Face folder, and the `generate` command; against `transformers` when installed."""

import collections
import json
import struct
import unicodedata

import numpy as np
import pytest

import tinygrad_norm as tg
from tinygrad_norm.cli import main
from tinygrad_norm.models import GPT, BPETokenizer, GPTConfig
from tinygrad_norm.models.tokenizer import (
    WHITE_SPACE,
    _is_letter,
    _is_number,
    bytes_to_unicode,
    pre_tokenize,
)

CORPUS = (
    "the quick brown fox jumps over the lazy dog. The dog's bed isn't there; 42 pies, 3.14! " * 3
    + "Привет мир, 漢字 and émojis 😀\n\n  tabs\tand  spaces   "
)
TRICKY = [
    CORPUS,
    "Hello  world\n\n  it's 2024<|endoftext|>new line",
    "x\x1c y \u3000z\u00a0 ²½ Ⅻ 一二",
    "'s'S 'll've don't   \n",
    "",
]


def train_bpe(text: str, n_merges: int):
    """A tiny BPE vocabulary: all 256 byte characters, then the most frequent pair merged
    `n_merges` times (ties: the larger pair), then <|endoftext|>."""
    encode = bytes_to_unicode()
    words = collections.Counter("".join(encode[b] for b in w.encode()) for w in pre_tokenize(text))
    words = {tuple(w): c for w, c in words.items()}
    merges = []
    for _ in range(n_merges):
        pairs = collections.Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        merged = {}
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = count
        words = merged
    vocab = {c: i for i, c in enumerate(encode.values())}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, merges


def write_tokenizer(folder, n_merges=60):
    vocab, merges = train_bpe(CORPUS, n_merges)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    lines = "".join(f"{a} {b}\n" for a, b in merges)
    (folder / "merges.txt").write_text("#version: 0.2\n" + lines, encoding="utf-8")
    return vocab


# --- the tokenizer ------------------------------------------------------------------------------
def test_bytes_to_unicode_is_gpt2s_one_to_one_map():
    table = bytes_to_unicode()
    assert len(set(table.values())) == 256 and all(c.isprintable() for c in table.values())
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("A")] == "A"


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "Hello world's 42 pies!!  ok",
            ["Hello", " world", "'s", " 42", " pies", "!!", " ", " ok"],
        ),
        ("a   b", ["a", "  ", " b"]),  # \s+(?!\S): the last space leads the next word
        ("a \n\nb", ["a", " \n", "\n", "b"]),
        ("end  ", ["end", "  "]),
        ("x²½ 漢字", ["x", "²½", " 漢字"]),  # ² and ½ are numbers (N*), 漢 a letter (Lo)
        ("a\x1cb", ["a", "\x1c", "b"]),  # not white space in Unicode (str.isspace says it is)
    ],
)
def test_pre_tokenize_splits_as_gpt2s_pattern(text, words):
    assert pre_tokenize(text) == words


def test_encode_merges_by_rank_and_decodes_back(tmp_path):
    vocab = write_tokenizer(tmp_path)
    tokenizer = BPETokenizer.from_pretrained(tmp_path)
    assert tokenizer.vocab_size == len(vocab)
    the = tokenizer.encode(" the")
    assert len(the) == 1 and tokenizer.decoder[the[0]] == "Ġthe"  # frequent: merged whole
    for text in TRICKY:
        assert tokenizer.decode(tokenizer.encode(text)) == text
    assert tokenizer.encode("a<|endoftext|>b")[1] == vocab["<|endoftext|>"]
    assert tokenizer.decode(tokenizer.encode("€")[:1]) == "\ufffd"  # half a character
    with pytest.raises(FileNotFoundError, match="vocab.json"):
        BPETokenizer.from_pretrained(tmp_path / "nowhere")


# --- from_pretrained ----------------------------------------------------------------------------
def _write_safetensors(path, arrays: dict):
    header, data = {}, b""
    for name, array in arrays.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape)}
        header[name]["data_offsets"] = [len(data), len(data) + len(raw)]
        data += raw
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


HF_CONFIG = {
    "model_type": "gpt2",
    "activation_function": "gelu_new",
    "layer_norm_epsilon": 1e-5,
    "n_embd": 16,
    "n_head": 2,
    "n_layer": 2,
    "n_positions": 32,
    "vocab_size": 40,
}


def test_from_pretrained_reads_a_gpt2_folder_of_original_names(tmp_path):
    tg.manual_seed(0)
    config = GPTConfig(vocab_size=40, n_ctx=32, d_model=16, n_layer=2, n_head=2, dropout=0.0)
    model = GPT(config).eval()
    # as the original GPT-2 files: no "transformer." prefix, no lm_head, the mask buffers
    state = {k.removeprefix("transformer."): v.numpy() for k, v in model.state_dict().items()}
    del state["lm_head.weight"]
    state["h.0.attn.bias"] = np.tril(np.ones((1, 1, 32, 32), dtype=np.float32))
    _write_safetensors(tmp_path / "model.safetensors", state)
    (tmp_path / "config.json").write_text(json.dumps(HF_CONFIG))
    loaded = GPT.from_pretrained(tmp_path)
    assert loaded.config == config and not loaded.training
    idx = tg.tensor([[1, 5, 7, 39]])
    np.testing.assert_array_equal(loaded(idx)[0].numpy(), model(idx)[0].numpy())
    (tmp_path / "config.json").write_text(json.dumps(HF_CONFIG | {"n_inner": 10}))
    with pytest.raises(ValueError, match="n_inner = 10 is not 4 \\* n_embd"):
        GPT.from_pretrained(tmp_path)
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match="neither model.safetensors nor pytorch_model.bin"):
        GPT.from_pretrained(tmp_path)


# --- against Hugging Face -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def hf_folder(tmp_path_factory):
    """A random 2-layer GPT-2 saved by transformers, with a small trained tokenizer."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("gpt2")
    vocab = write_tokenizer(folder)
    eos = vocab["<|endoftext|>"]
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=2, vocab_size=len(vocab), n_positions=64,
        bos_token_id=eos, eos_token_id=eos,
    )  # fmt: skip
    model = transformers.GPT2LMHeadModel(config).eval()
    model.save_pretrained(folder)
    return folder, model


@pytest.mark.oracle
def test_tokenizer_agrees_with_transformers_gpt2tokenizer(hf_folder):
    transformers = pytest.importorskip("transformers")
    folder, _ = hf_folder
    theirs = transformers.GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    ours = BPETokenizer.from_pretrained(folder)
    for text in TRICKY:
        assert ours.encode(text) == theirs.encode(text), text
        assert ours.decode(ours.encode(text)) == theirs.decode(theirs.encode(text))


@pytest.mark.oracle
@pytest.mark.parametrize("weights", ["model.safetensors", "pytorch_model.bin", "legacy .bin"])
def test_logits_and_greedy_tokens_agree_with_transformers(hf_folder, tmp_path, weights):
    torch = pytest.importorskip("torch")
    folder, hf_model = hf_folder
    if weights != "model.safetensors":  # the same weights as a PyTorch state dict
        for name in ("config.json", "vocab.json", "merges.txt"):
            (tmp_path / name).write_bytes((folder / name).read_bytes())
        zip_format = weights == "pytorch_model.bin"
        torch.save(
            hf_model.state_dict(),
            tmp_path / "pytorch_model.bin",
            _use_new_zipfile_serialization=zip_format,
        )
        folder = tmp_path
    model = GPT.from_pretrained(folder)
    ids = BPETokenizer.from_pretrained(folder).encode("the quick brown fox")
    with torch.no_grad():
        expected = hf_model(torch.tensor([ids])).logits.numpy()
        hf_tokens = hf_model.generate(torch.tensor([ids]), max_new_tokens=12, do_sample=False)
    np.testing.assert_allclose(model(tg.tensor([ids]))[0].numpy(), expected, atol=2e-5, rtol=1e-4)
    ours = model.generate(tg.tensor([ids]), max_new_tokens=12, temperature=0)
    assert ours.numpy().tolist() == hf_tokens.numpy().tolist()


@pytest.mark.oracle
def test_generate_command_prints_what_transformers_generates(hf_folder, capsys):
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    folder, hf_model = hf_folder
    tokenizer = transformers.GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    prompt = "The lazy dog's"
    with torch.no_grad():
        tokens = hf_model.generate(
            torch.tensor([tokenizer.encode(prompt)]), max_new_tokens=8, do_sample=False
        )
    assert (
        main(["generate", "--weights", str(folder), "--prompt", prompt, "--max-new-tokens", "8"])
        == 0
    )
    assert capsys.readouterr().out == tokenizer.decode(tokens[0]) + "\n"


def test_generate_command_explains_a_missing_folder(tmp_path, capsys):
    assert main(["generate", "--weights", str(tmp_path), "--prompt", "hi"]) == 2
    assert "cannot generate" in capsys.readouterr().out


@pytest.mark.oracle
def test_character_classes_agree_with_the_regex_module():
    """\\p{L}, \\p{N} and \\s of the `regex` module (what GPT-2 uses) against our emulation, on
    every code point that Python's unicodedata knows (newer ones are skipped)."""
    regex = pytest.importorskip(
        "regex",
        reason="the `regex` module (GPT-2's own tokenizer uses it) is not installed: "
        "`pip install regex`, or `make test-oracle`, which brings it with transformers",
    )
    classes = {
        r"\p{L}": _is_letter,
        r"\p{N}": _is_number,
        r"\s": lambda c: c in WHITE_SPACE,
    }
    known = [chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)) not in ("Cn", "Cs")]
    for pattern, ours in classes.items():
        theirs = regex.compile(pattern)
        wrong = [c for c in known if bool(theirs.fullmatch(c)) != ours(c)]
        assert wrong == [], (pattern, [hex(ord(c)) for c in wrong[:10]])
