"""A course-style PyTorch program: a small CNN that classifies generated 16x16 images of
horizontal bars, vertical bars and diagonals (a stand-in for MNIST that needs no download).

Conv2d, BatchNorm2d, ReLU, MaxPool2d, Dropout2d, Flatten, Dropout, Linear in nn.Sequentials; a
TensorDataset; SGD with momentum and weight decay and a StepLR schedule; evaluation under
model.eval() and torch.no_grad(); predictions by argmax.

Plain PyTorch, run under PyTorch and under tinygrad_norm by tests/compat/test_course_programs.py,
which compares what the two runs save (the command line: oracle_cli.py). Images
and the batch order come from NumPy's generator; dropout is off in training (`--dropout 0`)
so both frameworks compute the same numbers.
"""

import os

import numpy as np
import oracle_cli  # this folder's command line: --init, --out
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset


def make_images(rng, n, size=16):
    """n noisy images (n, 1, size, size) and their labels: 0 horizontal, 1 vertical, 2 diagonal."""
    labels = rng.integers(0, 3, size=n)
    images = 0.3 * rng.standard_normal((n, 1, size, size))
    for img, label in zip(images, labels):
        k = rng.integers(2, size - 2)
        if label == 0:
            img[0, k - 1 : k + 1, :] += 1.0
        elif label == 1:
            img[0, :, k - 1 : k + 1] += 1.0
        else:
            img[0] += np.eye(size) + np.eye(size, k=1)
    return images, labels


class Net(nn.Module):
    def __init__(self, num_classes=3, dropout=0.25):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1),  # (B, 4, 16, 16)
            nn.BatchNorm2d(4),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),  # (B, 4, 8, 8)
            nn.Dropout2d(p=dropout),  # whole feature maps
            nn.Conv2d(4, 8, kernel_size=3, padding=1),  # (B, 8, 8, 8)
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),  # (B, 8, 4, 4)
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),  # (B, 128)
            nn.Dropout(p=dropout),
            nn.Linear(8 * 4 * 4, 32),
            nn.ReLU(),
            nn.Linear(32, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def evaluate(model, loader_batches):
    model.eval()
    correct, total, loss_sum, predictions = 0, 0, 0.0, []
    with torch.no_grad():
        for images, labels in loader_batches:
            outputs = model(images)
            loss_sum += F.cross_entropy(outputs, labels, reduction="sum").item()
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
            predictions.append(predicted)
    model.train()
    return loss_sum / total, correct / total, torch.cat(predictions)


def main():
    args = oracle_cli.parse_args(epochs=2, dropout=0.0, dtype="float64")
    torch.set_default_dtype(torch.float64 if args.dtype == "float64" else torch.float32)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng(0)

    x_train, y_train = make_images(rng, 48)
    x_test, y_test = make_images(rng, 24)
    dtype = torch.get_default_dtype()
    train_set = TensorDataset(torch.from_numpy(x_train).to(dtype), torch.from_numpy(y_train))
    test_set = TensorDataset(torch.tensor(x_test, dtype=dtype), torch.tensor(y_test))
    print(f"train {len(train_set)} images of {tuple(train_set[0][0].shape)}, test {len(test_set)}")

    model = Net(dropout=args.dropout).to(device)
    if args.init and os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    elif args.init:
        torch.save(model.state_dict(), args.init)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)

    batch_size, losses, lrs, first_grads = 16, [], [], None
    for epoch in range(args.epochs):
        order = rng.permutation(len(train_set))  # the shuffle, from NumPy
        for i in range(0, len(order), batch_size):
            images, labels = train_set[torch.from_numpy(order[i : i + batch_size])]
            images, labels = images.to(device), labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            if first_grads is None:
                first_grads = {n: p.grad.clone().numpy() for n, p in model.named_parameters()}
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
        print(f"epoch {epoch + 1}/{args.epochs} loss {losses[-1]:.4f} lr {lrs[-1]}")

    test_batches = [test_set[i : i + 8] for i in range(0, len(test_set), 8)]
    test_loss, accuracy, predictions = evaluate(model, test_batches)
    print(f"test loss {test_loss:.4f} accuracy {100 * accuracy:.1f}%")
    results = {f"grad_{n}": g for n, g in first_grads.items()}
    results.update({f"state_{k}": v.cpu().numpy() for k, v in model.state_dict().items()})
    results.update(losses=np.array(losses), lrs=np.array(lrs), test_loss=test_loss)
    results.update(accuracy=accuracy, predictions=predictions.numpy())
    np.savez(args.out, **results)


if __name__ == "__main__":
    main()
