"""Data for training a small GPT: built-in digit tasks (no download) and a character dataset.

- `tasks.py`: `SortDigits`, `AddDigits`: prompts and exact answers, a held-out split, accuracy.
- `shapes.py`: `Shapes` (images of four shapes, for a CNN), `Parity` (bit strings, for an LSTM).
- `text.py`: `CharDataset`: random windows of any text, characters as tokens.
"""

from .shapes import Parity, Shapes
from .tasks import TASKS, AddDigits, DigitTask, SortDigits
from .text import CharDataset
