"""`torch.utils.tensorboard.SummaryWriter`: training curves for TensorBoard, written with the
`tensorboard` package's own event-file writer and protocol buffers (an optional dependency:
`pip install tensorboard`; without it, importing this module raises PyTorch's error,
`No module named 'tensorboard'`).

    writer = SummaryWriter("runs/mlp")            # default: runs/<date>_<host>
    writer.add_scalar("loss/train", loss.item(), step)
    writer.add_scalars("loss", {"train": 0.5, "val": 0.7}, step)   # one sub-folder per curve
    writer.add_histogram("fc1.weight", model.fc1.weight, step)
    writer.add_text("notes", "lr 0.1, batch 32", 0)
    writer.close()                                # then: tensorboard --logdir runs

Each call appends one Event (a wall time, a step and a Summary value) to an events.out.tfevents
file in log_dir, as PyTorch's writer does, so TensorBoard shows both alike. A histogram is
counted into PyTorch's default buckets (±1e-12 · 1.1^k, and 0) and trimmed to the buckets that
hold values. `add_graph` is not here: drawing the model's graph needs PyTorch's tracer (use
`tg.draw_graph(loss)` to see tinygrad_norm's graph).
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

import numpy as np
import tensorboard  # noqa: F401 - first, as PyTorch's: without it, PyTorch's ImportError
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ["SummaryWriter"]


def _default_buckets() -> list:
    """PyTorch's (and TensorFlow's) histogram edges: ±1e-12 growing by 10% up to 1e20, and 0."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0.0] + edges


DEFAULT_BUCKETS = _default_buckets()


def _numbers(value) -> np.ndarray:
    """A tensor (detached), array or number as a float64 NumPy array."""
    if hasattr(value, "detach"):
        value = value.detach().numpy()
    return np.asarray(value, dtype=np.float64)


def histogram_proto(values, bins="tensorflow", max_bins=None) -> HistogramProto:
    """The counts of `values` per bucket, without the empty buckets at both ends (TensorBoard
    takes each bucket's right edge; one empty bucket on the left keeps the leftmost edge)."""
    values = _numbers(values).reshape(-1)
    if values.size == 0:
        raise ValueError("add_histogram: the input has no element")
    counts, edges = np.histogram(values, bins=DEFAULT_BUCKETS if bins == "tensorflow" else bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, (-len(counts)) % group)).reshape(-1, group).sum(axis=1)
        edges = np.append(edges[:-1:group], edges[-1])
    used = np.flatnonzero(counts)
    first, last = used[0], used[-1] + 1
    if first > 0:
        counts, edges = counts[first - 1 : last], edges[first : last + 1]
    else:
        counts, edges = np.concatenate([[0], counts[:last]]), edges[: last + 1]
    return HistogramProto(
        min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
        sum_squares=values.dot(values), bucket_limit=edges.tolist(), bucket=counts.tolist(),
    )  # fmt: skip


class SummaryWriter:
    """Writes scalars, histograms and text to an event file in `log_dir` for TensorBoard."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):  # fmt: skip
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self._options = dict(max_queue_size=max_queue, flush_secs=flush_secs,
                             filename_suffix=filename_suffix)  # fmt: skip
        self._writer = EventFileWriter(self.log_dir, **self._options)
        self._scalar_writers = {}  # add_scalars: one writer per sub-folder

    def get_logdir(self) -> str:
        return self.log_dir

    def _add(self, summary: Summary, global_step, walltime, writer=None) -> None:
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        (writer or self._writer).add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):  # fmt: skip
        value = float(_numbers(scalar_value).reshape(-1)[0])
        self._add(
            Summary(value=[Summary.Value(tag=tag, simple_value=value)]), global_step, walltime
        )

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each curve in its own folder log_dir/<main_tag>_<tag>, all under the tag main_tag,
        so that TensorBoard draws them in one chart."""
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(self.log_dir, main_tag.replace("/", "_") + "_" + tag)
            if folder not in self._scalar_writers:
                self._scalar_writers[folder] = EventFileWriter(folder, **self._options)
            value = float(_numbers(value).reshape(-1)[0])
            summary = Summary(value=[Summary.Value(tag=main_tag, simple_value=value)])
            self._add(summary, global_step, walltime, self._scalar_writers[folder])

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):  # fmt: skip
        histogram = histogram_proto(values, bins, max_bins)
        self._add(Summary(value=[Summary.Value(tag=tag, histo=histogram)]), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Text (Markdown) under tag/text_summary, in the text plugin's format."""
        plugin = SummaryMetadata.PluginData(plugin_name="text", content=b"")
        tensor = TensorProto(
            dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
            tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
        )  # fmt: skip
        value = Summary.Value(
            tag=tag + "/text_summary", metadata=SummaryMetadata(plugin_data=plugin), tensor=tensor
        )
        self._add(Summary(value=[value]), global_step, walltime)

    def flush(self) -> None:
        self._writer.flush()
        for writer in self._scalar_writers.values():
            writer.flush()

    def close(self) -> None:
        self._writer.close()
        for writer in self._scalar_writers.values():
            writer.close()
        self._scalar_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
    raise NotImplementedError(
        "SummaryWriter.add_graph is not here: drawing a model's graph needs PyTorch's tracer "
        "(torch.jit.trace); see tinygrad_norm's own graph with tg.draw_graph(loss) instead"
    )


SummaryWriter.add_graph = _add_graph
