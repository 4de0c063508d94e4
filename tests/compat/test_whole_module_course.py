"""A course's way of keeping its best model (pytorch/examples' word_language_model does this):
`torch.save(model, f)` into an open file, then `torch.load(f)` inside
`torch.serialization.safe_globals([...])` naming the classes by their `torch.nn.modules`
paths, then `model.rnn.flatten_parameters()`; all under `install_as_torch`."""

import importlib
import pickle

import numpy as np
import pytest

import tinygrad_norm as tg


@pytest.fixture(scope="module")
def torch():
    tg.install_as_torch()
    yield importlib.import_module("torch")
    tg.uninstall_as_torch()


def _language_model_class(torch):
    nn = torch.nn

    class RNNModel(nn.Module):
        def __init__(self, ntoken, width, tie):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(ntoken, width)
            self.rnn = nn.GRU(width, width, 2, dropout=0.2)
            self.decoder = nn.Linear(width, ntoken)
            if tie:
                self.decoder.weight = self.encoder.weight
            self.ntoken, self.rnn_type = ntoken, "GRU"

        def forward(self, x, hidden):
            output, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
            decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
            return torch.nn.functional.log_softmax(decoded, dim=1), hidden

    RNNModel.__qualname__ = "RNNModel"
    globals()["RNNModel"] = RNNModel  # found by its import path, as a course's model.py class
    return RNNModel


def test_the_best_model_is_saved_whole_and_loaded_back_by_its_torch_paths(torch, tmp_path):
    RNNModel = _language_model_class(torch)
    torch.manual_seed(1111)
    model = RNNModel(11, 6, tie=True)
    x, hidden = torch.randint(0, 11, (5, 3)), torch.zeros(2, 3, 6)
    with open(tmp_path / "model.pt", "wb") as f:
        torch.save(model, f)
    listed = [
        RNNModel,
        torch.nn.modules.dropout.Dropout,
        torch.nn.modules.linear.Linear,
        torch.nn.modules.rnn.GRU,
        torch.nn.modules.sparse.Embedding,
    ]
    with open(tmp_path / "model.pt", "rb") as f:
        with torch.serialization.safe_globals(listed):
            loaded = torch.load(f)
    loaded.rnn.flatten_parameters()
    model.eval(), loaded.eval()
    with torch.no_grad():
        (ours, _), (back, _) = model(x, hidden), loaded(x, hidden)
    np.testing.assert_array_equal(ours.numpy(), back.numpy())
    assert loaded.decoder.weight is loaded.encoder.weight
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL .*RNNModel was not an allowed global"):
        with open(tmp_path / "model.pt", "rb") as f:
            torch.load(f)
