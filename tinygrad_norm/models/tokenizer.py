"""GPT-2's tokenizer: byte-level byte-pair encoding (BPE), read from `vocab.json` + `merges.txt`.

Text becomes token ids in three steps:

1. **Pre-tokenize**: split the text into words with GPT-2's pattern
   `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`
   (a contraction, or letters, or digits, or other symbols, each with at most one leading
   space; then runs of whitespace). Python's `re` has no `\\p{L}` (any letter) or `\\p{N}` (any
   number), so `pre_tokenize` scans the text by hand, alternative by alternative, with the
   Unicode categories from `unicodedata` (L* = letter, N* = number) and the Unicode
   White_Space set for `\\s` (what the `regex` module uses: Python's `str.isspace` also counts
   the separators U+001C..U+001F, which `regex` does not). Checked against `regex` on every
   code point: white space agrees exactly; letters and numbers agree except for characters
   that Unicode assigned after the version Python's `unicodedata` knows (14.0 in Python
   3.11), which count as "other" symbols here.
2. **Bytes to characters**: each word's UTF-8 bytes are mapped one to one onto 256 printable
   characters (`bytes_to_unicode`: bytes that print are themselves, the others are moved to
   U+0100 and up; the space byte becomes "Ġ"). So every text is representable: no unknown
   token, ever.
3. **Merge**: start from single characters and repeatedly merge the adjacent pair that
   `merges.txt` ranks first (its line order), until no listed pair is left; each resulting
   piece is looked up in `vocab.json`.

Decoding joins the pieces and maps the characters back to bytes, then UTF-8.

>>> tok = BPETokenizer({c: i for i, c in enumerate("abĠ")} | {"ab": 3, "Ġab": 4},
...                    [("a", "b"), ("Ġ", "ab")])
>>> tok.encode("ab ab"), tok.decode([3, 4])
([3, 4], 'ab ab')
"""

from __future__ import annotations

import json
import os
import unicodedata

SPECIAL_TOKENS = ("<|endoftext|>",)
WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)  # Unicode's White_Space property: what `\s` matches in the `regex` module
CONTRACTIONS = ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from the 256 byte values to printable characters (one to one)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    printable += range(ord("®"), ord("ÿ") + 1)
    mapping = {b: chr(b) for b in printable}
    moved = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + moved)
            moved += 1
    return mapping


def _is_letter(c: str) -> bool:
    return unicodedata.category(c).startswith("L")


def _is_number(c: str) -> bool:
    return unicodedata.category(c).startswith("N")


def _is_other(c: str) -> bool:
    return not (c in WHITE_SPACE or _is_letter(c) or _is_number(c))


def _run(text: str, start: int, accept) -> int:
    """The end of the run of characters from `start` on that `accept`."""
    end = start
    while end < len(text) and accept(text[end]):
        end += 1
    return end


def pre_tokenize(text: str) -> list[str]:
    """Split `text` into words as GPT-2's regular expression does (see the module docstring).

    >>> pre_tokenize("Hello world's 42 pies!!  ok")
    ['Hello', ' world', "'s", ' 42', ' pies', '!!', ' ', ' ok']
    """
    words, i = [], 0
    while i < len(text):
        end = _match_at(text, i)
        words.append(text[i:end])
        i = end
    return words


def _match_at(text: str, i: int) -> int:
    """The end of the first alternative of the pattern that matches at `i`."""
    for contraction in CONTRACTIONS:
        if text.startswith(contraction, i):
            return i + len(contraction)
    body = i + 1 if text[i] == " " and i + 1 < len(text) else i  # the optional leading space
    for accept in (_is_letter, _is_number, _is_other):
        if accept(text[body]):  # (without the space, " " itself is never L, N or other)
            return _run(text, body, accept)
    end = _run(text, i, lambda c: c in WHITE_SPACE)  # \s+(?!\S), else \s+
    if end < len(text) and end - i > 1:
        return end - 1  # leave the last space to lead the next word
    return end


class BPETokenizer:
    """Byte-level BPE with GPT-2's rules: `encode(text) -> ids`, `decode(ids) -> text`.

    `vocab`: {token string: id} (vocab.json); `merges`: the ranked pairs (merges.txt).
    """

    def __init__(self, vocab: dict[str, int], merges: list[tuple[str, str]]):
        self.encoder = dict(vocab)
        self.decoder = {i: token for token, i in self.encoder.items()}
        self.ranks = {tuple(pair): rank for rank, pair in enumerate(merges)}
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {c: b for b, c in self.byte_encoder.items()}
        self.special = [t for t in SPECIAL_TOKENS if t in self.encoder]
        self._cache: dict[str, list[str]] = {}

    @classmethod
    def from_pretrained(cls, folder) -> BPETokenizer:
        """Read `vocab.json` and `merges.txt` from a Hugging Face GPT-2 folder."""
        folder = os.fspath(folder)
        paths = [os.path.join(folder, name) for name in ("vocab.json", "merges.txt")]
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            raise FileNotFoundError(
                f"BPETokenizer: {', '.join(missing)} not found; a GPT-2 folder holds "
                "vocab.json and merges.txt (save_pretrained of a GPT2Tokenizer writes them)"
            )
        with open(paths[0], encoding="utf-8") as f:
            vocab = json.load(f)
        with open(paths[1], encoding="utf-8") as f:
            lines = [line.rstrip("\n") for line in f]
        merges = [tuple(line.split(" ")) for line in lines if line and not line.startswith("#")]
        bad = [pair for pair in merges if len(pair) != 2]
        if bad:
            raise ValueError(f"BPETokenizer: merges.txt has lines that are not pairs: {bad[:3]}")
        return cls(vocab, merges)

    @property
    def vocab_size(self) -> int:
        return len(self.encoder)

    def bpe(self, word: str) -> list[str]:
        """The pieces of one pre-token (already mapped to byte characters)."""
        if word in self._cache:
            return self._cache[word]
        pieces = list(word)
        while len(pieces) > 1:
            pairs = [(self.ranks.get(pair), n) for n, pair in enumerate(zip(pieces, pieces[1:]))]
            ranked = [(rank, n) for rank, n in pairs if rank is not None]
            if not ranked:
                break
            first, second = pieces[min(ranked)[1]], pieces[min(ranked)[1] + 1]
            merged, n = [], 0
            while n < len(pieces):  # merge every occurrence of the pair, left to right
                if n + 1 < len(pieces) and pieces[n] == first and pieces[n + 1] == second:
                    merged.append(first + second)
                    n += 2
                else:
                    merged.append(pieces[n])
                    n += 1
            pieces = merged
        self._cache[word] = pieces
        return pieces

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`; "<|endoftext|>" (when in the vocabulary) is one token."""
        ids = []
        for part in self._split_special(text):
            if part in self.special:
                ids.append(self.encoder[part])
                continue
            for word in pre_tokenize(part):
                mapped = "".join(self.byte_encoder[b] for b in word.encode("utf-8"))
                for piece in self.bpe(mapped):
                    if piece not in self.encoder:
                        raise ValueError(f"BPETokenizer: the piece {piece!r} is not in vocab.json")
                    ids.append(self.encoder[piece])
        return ids

    def _split_special(self, text: str) -> list[str]:
        parts = [text]
        for token in self.special:
            parts = [p for part in parts for p in _split_keep(part, token)]
        return [p for p in parts if p]

    def decode(self, ids) -> str:
        """The text of token ids (invalid UTF-8, e.g. half a character, shows as U+FFFD)."""
        unknown = [int(i) for i in ids if int(i) not in self.decoder]
        if unknown:
            raise ValueError(f"BPETokenizer.decode: ids {unknown[:5]} are not in the vocabulary")
        text = "".join(self.decoder[int(i)] for i in ids)
        return bytes(self.byte_decoder[c] for c in text).decode("utf-8", errors="replace")


def _split_keep(text: str, token: str) -> list[str]:
    """`text` split around `token`, the tokens kept: "a<t>b" -> ["a", "<t>", "b"]."""
    pieces = text.split(token)
    out = [pieces[0]]
    for piece in pieces[1:]:
        out += [token, piece]
    return out
