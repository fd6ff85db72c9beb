"""Training the occupancy model (`damas train vision`): a small CNN on synthetic patches
(`synth`), exported to ONNX for OpenCV's dnn module. Needs the `train` extra (torch,
onnx); nothing here runs at play time.

Reproducible from a seed: the same seed gives the same patches, the same initial
weights and the same batches (torch set to deterministic, single-threaded kernels where
it matters). Whatever is trained here never sees the real photos in ../shared: those
are for evaluation only."""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from .errors import VisionError
from .occupancy import without_source
from .patches import SIDE

CHUNK = 5000
RENDER_CHUNK = 2000
CLASSES = 4  # empty, man, crowned piece, two men stacked
BATCH = 512
HELD_OUT = 1000  # the least held-out patches, to report on
MIN_SAMPLES = HELD_OUT + BATCH  # and a batch to train on
RENDERED_SHARE = 2  # one patch in two is cut from a frame of damas' own renderer
VARIED_FRAMES = 0.8  # of those frames, the share of sets and light of every kind


def _chunk(args):
    from . import synth

    count, seed = args
    return synth.batch(count, seed)


def _drawn(work, samples: int, chunk: int, seed_of, workers: int, progress, what: str):
    """`samples` patches drawn by `work((count, seed))` in chunks, each with the seed
    `seed_of(chunk index)`, so any worker count gives the same data."""
    chunks = [(min(chunk, samples - k), seed_of(k // chunk)) for k in range(0, samples, chunk)]
    xs, ys, ds = [], [], []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for k, (x, y, d) in enumerate(pool.map(work, chunks)):
            xs.append(x)
            ys.append(y)
            ds.append(d)
            progress(f"{what} {min((k + 1) * chunk, samples)}/{samples}")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ds)


def make_data(samples: int, seed: int, workers: int, progress=print):
    """Synthetic patches."""
    return _drawn(_chunk, samples, CHUNK, lambda i: seed * 1_000_003 + i, workers, progress,
                  "patches")


def _render_chunk(args):
    """Patches of frames from damas' own renderer (its crowns, stacks, grain and light),
    read through the same path as at play time, with the truth of every square."""
    import random

    from damas.calibration.camera import Camera
    from damas.rules import Position

    from .board import BoardPose
    from .patches import BoardPatches, normalise
    from .render import render
    from .scene import random_scene, varied_scene
    from .synth import SEAM_SHOWS

    count, seed = args
    rng = random.Random(seed)
    xs, ys, ds = [], [], []
    while sum(len(y) for y in ys) < count:
        scene = (varied_scene(rng) if rng.random() < VARIED_FRAMES else
                 random_scene(rng, king_mark=rng.choice(["crown", "crown", "none"])))
        name = "international" if scene.size == 10 else rng.choice(["brazilian", "english"])
        pos = Position.start(name)
        for _ in range(rng.randrange(0, 160)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rng.choice(moves))
        shot = render(scene, pos.pieces())
        cam = shot.camera
        pose = BoardPose(scene.size, Camera(cam.intrinsics, cam.R, cam.t / scene.square_mm))
        patches = BoardPatches(pose)
        raw, dark_ref, light_ref = patches.corrected(shot.image)
        n = scene.size * scene.size // 2
        x = normalise(raw[:n], dark_ref, light_ref)
        pieces = pos.pieces()
        lean = patches.squares.lean[:n]
        for s in range(1, n + 1):
            v = pieces.get(s)
            king = v is not None and v.isupper()
            men = scene.king_men if king else 1
            if v is None:
                label = 0
            elif king and scene.king_mark in ("crown", "sticker"):
                label = 2  # a mark on top
            elif men == 2 and scene.piece_height * lean[s - 1] >= SEAM_SHOWS:
                label = 3  # two plain men stacked, seen as two
            else:
                label = 1
            ys.append([label])
            height = 0.0 if v is None else scene.piece_height * men
            ds.append([lean[s - 1] * height])
        xs.append(x)
    return (np.concatenate(xs)[:count], np.concatenate(ys).ravel()[:count].astype(np.int64),
            np.concatenate(ds).ravel()[:count].astype(np.float32))


def make_render_data(samples: int, seed: int, workers: int, progress=print):
    """Patches cut from frames of damas' renderer."""
    return _drawn(_render_chunk, samples, RENDER_CHUNK, lambda i: seed * 7919 + i, workers,
                  progress, "rendered patches")


def training_photos(folders: tuple[Path, ...]):
    """Every labelled photo of `folders`: a folder's labels.json, and the frames, start and
    empty-board photos of its sequences.json with its singles.json. A photo kept in two
    places (the same bytes) is taken once."""
    import hashlib

    from .photos import load_labels
    from .sequences import load_sequences

    found = []
    for folder in folders:
        folder = Path(folder)
        kinds = [f for f in ("labels.json", "sequences.json") if (folder / f).is_file()]
        if not kinds:
            raise VisionError(f"{folder}: no labels.json or sequences.json there")
        if "labels.json" in kinds:
            found += load_labels(folder)
        if "sequences.json" in kinds:
            found += [p for seq in load_sequences(folder) for p in seq.photos]
            if (folder / "singles.json").is_file():
                found += load_labels(folder, "singles.json")
    seen, photos = set(), []
    for photo in found:
        try:
            digest = hashlib.sha1(photo.path.read_bytes()).hexdigest()
        except OSError:
            digest = str(photo.path)  # unreadable: located_photos says so
        if digest not in seen:
            seen.add(digest)
            photos.append(photo)
    return photos


def located_photos(photos: list, progress=print) -> tuple:
    """(photo, its board's pose) of each training photo (`training_photos`), found once
    for every fine-tuning: the locate is the same each time. A photo that
    cannot be read, or whose board is not found, is left out and said so."""
    import cv2

    from .locate import locate

    located = []
    for photo in photos:
        image = cv2.imread(str(photo.path))
        if image is None:
            progress(f"{photo.name}: not a readable image, left out")
            continue
        try:
            pose = locate(image, photo.size, use_markers=False).pose
        except VisionError:
            progress(f"{photo.name}: board not found, left out")
            continue
        located.append((photo, pose.turned(1) if photo.pieces_on_light else pose))
    return tuple(located)


def photo_data(located: tuple, exclude: tuple[str, ...] = (), copies: int = 16,
               seed: int = 1, progress=print):
    """Patches of the labelled real photos (`located_photos`), every square (playing and
    plain) `copies` times, each time a little off-centre and under another light, lens
    and sensor; photos of the sources in `exclude` left out. The top's displacement is
    not labelled on photos: NaN, which the training skips."""
    import cv2

    from .patches import BoardPatches, PatchSampler, normalise
    from .photos import playing_truth, truth_by_cell

    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for photo, pose in located:
        if photo.source in exclude:
            continue
        image = cv2.imread(str(photo.path))
        if image is None:  # readable when it was located, since changed
            progress(f"{photo.name}: not a readable image, left out")
            continue
        board = BoardPatches(pose)
        raw, dark_ref, light_ref = board.corrected(image)
        gain = board.squares(image) / np.maximum(raw, 1e-3)  # the light field divided out
        gain = np.median(gain.reshape(len(gain), -1, 3), axis=1)
        truth = playing_truth(photo, pose)
        cells = truth_by_cell(photo, pose)
        k = len(board.dark)
        labels = [truth[s] for s in range(1, k + 1)]
        for (r, c), ch in cells.items():  # plain squares: empty when labelled so
            if (r + c) % 2 == 0:
                labels.append("_" if ch in "._" else "?")
        keep = [i for i, ch in enumerate(labels) if ch != "?"]
        value = {"_": 0, ".": 0, "l": 1, "d": 1, "L": 2, "D": 2}
        for _ in range(copies):
            jitter = board.centres[keep] + rng.uniform(-0.06, 0.06, (len(keep), 2))
            patches = PatchSampler(pose, jitter)(image) / gain[keep, None, None, :]
            patches = _photometric(patches, rng)
            playing = np.array([i < k for i in keep])
            x = np.empty_like(patches)
            x[playing] = normalise(patches[playing], dark_ref, light_ref)
            x[~playing] = normalise(patches[~playing], light_ref, dark_ref)
            xs.append(x)
            ys.append([value[labels[i]] for i in keep])
        progress(f"{photo.name}: {len(keep)} squares x {copies}")
    if not xs:  # every photo of the one source left out: the model without it has none
        return (np.zeros((0, SIDE, SIDE, 3), np.float32), np.zeros(0, np.int64),
                np.zeros(0, np.float32))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int64)
    return x, y, np.full(len(y), np.nan, np.float32)


def _photometric(patches: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another light, lens and sensor for real patches (BGR float)."""
    import cv2

    out = np.empty_like(patches)
    for i, p in enumerate(patches):
        p = p * rng.uniform(0.75, 1.25) * rng.uniform(0.9, 1.1, 3)
        p = 255 * (np.clip(p, 0, 255) / 255) ** rng.uniform(0.8, 1.25)
        if rng.random() < 0.4:
            p = cv2.GaussianBlur(p, (0, 0), rng.uniform(0.3, 1.2))
        p = p + rng.normal(0, rng.uniform(0, 5), p.shape)
        out[i] = np.clip(p, 0, 255)
    return out


WIDTHS = (32, 64, 96, 128, 192)  # channels of the five convolutions


def _model():
    """A full 3x3 convolution, then depthwise-separable ones (a 3x3 per channel, a 1x1
    across): about 2.5 M multiply-adds a patch, so a 10x10 board's 100 patches and
    their mirror images take about 25 ms on one core. Outputs: a logit per class and
    the top's displacement."""
    import torch.nn as nn

    def full(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    def separable(cin, cout, stride):
        return [nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
                nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
                nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    return nn.Sequential(
        *full(3, WIDTHS[0], 2), *separable(WIDTHS[0], WIDTHS[1], 1),
        *separable(WIDTHS[1], WIDTHS[2], 2), *separable(WIDTHS[2], WIDTHS[3], 1),
        *separable(WIDTHS[3], WIDTHS[4], 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(WIDTHS[4], CLASSES + 1))


def drawn_patches(samples: int, seed: int, workers: int = 2, progress=print,
                  cache: Path | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(patches, labels, top displacements): synthetic, one in RENDERED_SHARE cut from
    the renderer's frames, mixed. `cache`: a .npz to keep them in and reuse (same
    samples and seed only)."""
    if cache is not None and Path(cache).exists():
        data = np.load(cache)
        if int(data["seed"]) != seed or len(data["y"]) != samples:
            raise VisionError(f"{cache}: made for another seed or sample count")
        return data["x"], data["y"], data["d"]
    rendered = samples // RENDERED_SHARE
    x, y, d = make_data(samples - rendered, seed, workers, progress)
    xr, yr, dr = make_render_data(rendered, seed, workers, progress)
    mix = np.random.default_rng(seed).permutation(samples)
    x, y, d = (np.concatenate([a, b])[mix] for a, b in ((x, xr), (y, yr), (d, dr)))
    if cache is not None:
        np.savez(cache, x=x, y=y, d=d, seed=seed)
    return x, y, d


def train(out: Path, patches: tuple[np.ndarray, np.ndarray, np.ndarray], epochs: int = 10,
          seed: int = 1, progress=print, photos: tuple = (),
          exclude: tuple[str, ...] = (), init: Path | None = None, lr: float = 3e-3) -> dict:
    """Trains on `patches` (`drawn_patches`) and writes `out` (ONNX, and the weights as
    .pt beside it) after every epoch, so a long run can be used (or stopped) at any
    point. `photos`: labelled real photos and their poses (`located_photos`) to train on
    as well, less the sources in `exclude`. `init`: weights (.pt) to start from."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        raise VisionError("training needs the train extra: pip install -e '.[train]'") from None
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    t0 = time.time()
    x, y, d = patches
    if photos:
        xp, yp, dp = photo_data(photos, tuple(exclude), seed=seed, progress=progress)
        x, y, d = np.concatenate([x, xp]), np.concatenate([y, yp]), np.concatenate([d, dp])
        mix = np.random.default_rng(seed + 1).permutation(len(y))
        x, y, d = x[mix], y[mix], d[mix]
    hold = max(HELD_OUT, len(y) // 50)  # a held-out slice, to report
    xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    yt, dt = torch.from_numpy(y), torch.from_numpy(d)
    x_val, y_val, x_tr, y_tr, d_tr = xt[:hold], yt[:hold], xt[hold:], yt[hold:], dt[hold:]
    model = _model()
    if init is not None:
        model.load_state_dict(torch.load(init))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(x_tr) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x_tr), generator=gen)
        total = 0.0
        for k in range(len(x_tr) // BATCH):
            idx = order[k * BATCH:(k + 1) * BATCH]
            xb, yb, db = x_tr[idx], y_tr[idx], d_tr[idx]
            flip = torch.rand(len(xb), generator=gen) < 0.5  # a mirror keeps "up" up
            xb = torch.where(flip[:, None, None, None], xb.flip(3), xb)
            logits = model(xb)
            loss = F.cross_entropy(logits[:, :CLASSES], yb, label_smoothing=0.02)
            piece = (yb > 0) & torch.isfinite(db)  # only pieces, and only where known
            if piece.any():
                loss = loss + 4 * F.smooth_l1_loss(logits[piece, CLASSES], db[piece],
                                                   beta=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        model.eval()
        with torch.no_grad():
            called = model(x_val)[:, :CLASSES].argmax(1)
        acc = float((called == y_val).float().mean())
        recall = per_class_recall(called.numpy(), y_val.numpy())
        progress(f"epoch {epoch + 1}/{epochs}: loss {total / max(1, k + 1):.4f}, "
                 f"held-out accuracy {100 * acc:.2f} % ({recall_text(recall)})")
        _export(model, out)
        torch.save(model.state_dict(), out.with_suffix(".pt"))  # to fine-tune from
    return {"samples": len(y), "epochs": epochs, "seed": seed, "held_out_accuracy": acc,
            "held_out_recall": recall,
            "seconds": time.time() - t0, "bytes": out.stat().st_size}


CLASS_NAMES = ("empty", "men", "crowned", "stacks")


def per_class_recall(called: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    """Of each class's held-out patches, the share called that class: the accuracy alone
    hides a rare class the model never calls (the kings are a few % of the patches)."""
    return {name: float((called[truth == k] == k).mean())
            for k, name in enumerate(CLASS_NAMES) if (truth == k).any()}


def recall_text(recall: dict[str, float]) -> str:
    return ", ".join(f"{name} {100 * r:.0f} %" for name, r in recall.items())


def _export(model, out: Path) -> None:
    """ONNX with two outputs: the model's four values, and the features they are
    computed from (the reader compares the squares of one board with them)."""
    import torch

    class WithFeatures(torch.nn.Module):
        def __init__(self, net):
            super().__init__()
            self.body, self.head = net[:-1], net[-1]

        def forward(self, x):
            features = self.body(x)
            return self.head(features), features

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    model.eval()
    torch.onnx.export(WithFeatures(model), (torch.zeros(1, 3, SIDE, SIDE),), str(tmp),
                      input_names=["patch"], output_names=["logits", "features"],
                      dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"},
                                    "features": {0: "n"}},
                      opset_version=13, dynamo=False)
    os.replace(tmp, out)


def train_all(folder: Path, samples: int, epochs: int, fine_epochs: int, seed: int,
              workers: int, photos: tuple[Path, ...] = (), progress=print,
              cache: Path | None = None) -> dict:
    """The models damas ships, into `folder`: a base net on synthetic and rendered
    patches; with `photos` (folders, `training_photos`), that base fine-tuned on the
    photos too (occupancy.onnx, with a manifest of the sources it saw), and once per
    source without that source (loso/SOURCE.onnx), so no bench scores a photo with a
    model that saw it. Without photos the base net is the shipped one. Returns each
    training's report, by "base", "all" or a source's short name."""
    import json

    from damas.calibration.store import atomic_write_bytes, atomic_write_text

    folder = Path(folder)
    found = training_photos(tuple(Path(p) for p in photos)) if photos else []
    sources = sorted({p.source for p in found})
    work = folder / "training"
    work.mkdir(parents=True, exist_ok=True)
    base = work / "base.onnx"
    # drawn once: every fine-tuning below trains on the same patches as the base
    patches = drawn_patches(samples, seed, workers, progress, cache)
    reports = {"base": train(base, patches, epochs, seed, progress)}
    nets = {None: base}
    located = located_photos(found, progress) if sources else ()
    for source in sources + [None] if sources else []:
        name = "all" if source is None else source.split("/")[-1]
        progress(f"fine-tuning with the photos{'' if source is None else ' but ' + source}")
        nets[source] = work / f"{name}.onnx"
        reports[name] = train(nets[source], patches, fine_epochs, seed, progress,
                              photos=located, exclude=() if source is None else (source,),
                              init=base.with_suffix(".pt"), lr=1e-3)
    for source, net in nets.items():
        target = folder / "occupancy.onnx" if source is None else without_source(folder, source)
        atomic_write_bytes(target, net.read_bytes())
    manifest = {"photo_sources": sources, "samples": samples, "epochs": epochs,
                "fine_tune_epochs": fine_epochs if sources else 0, "seed": seed}
    atomic_write_text(folder / "occupancy.json", json.dumps(manifest, indent=1) + "\n")
    return reports

