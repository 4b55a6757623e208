#!/usr/bin/env python3
"""Compares `reception train` options by k-fold cross-validation over the human-written
`train` and `dev` parts, with the project's dev split as the model-written guard.

A development tool, not part of the package. Needs only Python 3 and a release build:

    swift build -c release --product reception
    scripts/intent-cv.py --options="--l2 0.0001"              # against the default options
    scripts/intent-cv.py --options="--source-weight 3" --against="--source-weight 2"
    scripts/intent-cv.py --leave-source-out --options="--balance 0.5"   # each source left out instead
    scripts/intent-cv.py --options="--lexicon my-lexicon.txt"  # an edited lexicon (classified with it too)

Why: the human dev parts hold 560 agreed messages, so two option sets a few messages apart
cannot be told apart on them. Here every agreed message of the `train` and `dev` parts (3,167)
is predicted once, by a model trained as the shipped one (`--with-shipped-corpora`) without
that message's fold, and the two option sets are compared message by message (McNemar's z on
the messages exactly one of them gets right). The model-written side: each option set trained
on the `train` parts only (`--split train`), evaluated on Tests/Corpora/dev.jsonl.

With --leave-source-out, each source's `train` and `dev` messages are predicted instead by a
model trained without any message of that source (`--exclude-source`): how options carry to a
kind of writer never seen, as a source in no training set would be.

The `test` parts and the unseen batches are never read: they stay for a choice already made.
Folds are an MD5 of the id (independent of the id-hash split). Each fold's corpora are a
temporary copy of the human batches without that fold, given to `reception train` as
`--corpora-root`; the third-party text is never written into the project.
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_spec = importlib.util.spec_from_file_location("baselines", os.path.join(ROOT, "scripts", "intent-baselines.py"))
baselines = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baselines)

HEADS = ("intent", "urgency")
BATCH_FILES = ("messages.jsonl", "labels_a.jsonl", "labels_b.jsonl")


def fold(identifier, folds):
    return int(hashlib.md5(identifier.encode("utf-8")).hexdigest(), 16) % folds


def in_training_parts(identifier):
    return baselines.part(identifier) != "test"


def write_fold_root(workdir, k, folds):
    """A checkout-shaped folder whose human batches leave out fold k (the test parts stay in
    the files: `--with-shipped-corpora` drops them by itself)."""
    root = os.path.join(workdir, f"fold-{k}", "root")
    os.makedirs(os.path.join(root, "Tests", "Corpora"))
    for name in ("train.jsonl", "dev.jsonl"):
        os.symlink(os.path.join(ROOT, "Tests", "Corpora", name), os.path.join(root, "Tests", "Corpora", name))
    shared = os.path.join(workdir, f"fold-{k}", "shared", "corpora", "human-train")
    for batch in baselines.HUMAN_BATCHES:
        target = shared if batch == baselines.HUMAN_BATCHES[0] else os.path.join(shared, os.path.basename(batch))
        os.makedirs(target, exist_ok=True)
        for name in BATCH_FILES:
            kept = [row for row in baselines.read([os.path.join(batch, name)])
                    if not (in_training_parts(row["id"]) and fold(row["id"], folds) == k)]
            baselines.write_jsonl(kept, os.path.join(target, name))
    return root


def lexicon_of(options):
    """`--lexicon PATH` when the options train with a lexicon of their own: the weights are
    read with it, or its cues would be the shipped lexicon's."""
    return options[options.index("--lexicon"):options.index("--lexicon") + 2] if "--lexicon" in options else []


def classify(binary, weights, rows, extra=()):
    payload = "".join(json.dumps({"text": r["text"], "goal": r.get("goal")}, ensure_ascii=False) + "\n" for r in rows)
    out = subprocess.run([binary, "classify", "--jsonl-input", "--weights", weights, *extra], input=payload,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(rows), "reception classify skipped lines"
    return [json.loads(line)["classification"] for line in out]


def train(binary, args, out):
    result = subprocess.run([binary, "train", *args, "--out", out, "--force"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"reception train {' '.join(args)} failed:\n{result.stderr}")


def predict_held_out(binary, parts, held, workdir, name, train_args, part_of, extra=()):
    """Predictions for every held message, each by the model trained without its part:
    `train_args(part)` are the `reception train` arguments leaving `part` out, `part_of(row)`
    the part a message is in."""
    def run(part):
        weights = os.path.join(workdir, f"{name}-{part}.json")
        train(binary, train_args(part), weights)
        rows = [r for r in held if part_of(r) == part]
        return list(zip(rows, classify(binary, weights, rows, extra)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        pairs = [pair for chunk in pool.map(run, parts) for pair in chunk]
    return {row["id"]: (row, prediction) for row, prediction in pairs}


def cross_validate(binary, options, folds, held, workdir, label):
    """Each message predicted by the model trained without its fold."""
    return predict_held_out(binary, range(folds), held, workdir, label,
                            lambda k: ["--with-shipped-corpora", "--corpora-root", os.path.join(workdir, f"fold-{k}", "root"), *options],
                            lambda row: fold(row["id"], folds), lexicon_of(options))


def leave_source_out(binary, options, held, workdir, label):
    """Each message predicted by the model trained without any message of its source: how the
    options carry to a kind of writer never seen."""
    return predict_held_out(binary, sorted({source_of(r) for r in held}), held, workdir, f"{label}-without",
                            lambda source: ["--with-shipped-corpora", "--corpora-root", ROOT, "--exclude-source", source, *options],
                            source_of, lexicon_of(options))


def source_of(row):
    return row["source"].split(":", 1)[0]


def model_written(binary, options, workdir, label):
    weights = os.path.join(workdir, f"{label}-project.json")
    train(binary, ["--with-shipped-corpora", "--corpora-root", ROOT, "--split", "train", *options], weights)
    rows = baselines.read([os.path.join(ROOT, "Tests", "Corpora", "dev.jsonl")])
    return list(zip(rows, classify(binary, weights, rows, lexicon_of(options))))


def summary(pairs):
    cells = []
    for head in HEADS:
        right = sum(row[head] == p[head] for row, p in pairs)
        calibration = baselines.ece([p[head + "Confidence"] for _, p in pairs], [row[head] == p[head] for row, p in pairs])
        cells.append(f"{head} {right / len(pairs):.4f} ({right}, ECE {calibration:.3f})")
    return "; ".join(cells)


def by_source(pairs):
    counts = {}
    for row, p in pairs:
        tallies = counts.setdefault(source_of(row), [0, 0, 0])
        tallies[0] += row["intent"] == p["intent"]
        tallies[1] += row["urgency"] == p["urgency"]
        tallies[2] += 1
    return ", ".join(f"{s} {i / t:.3f} / {u / t:.3f}" for s, (i, u, t) in sorted(counts.items()))


def paired(a, b, head):
    only_a = sum(1 for i in a if a[i][0][head] == a[i][1][head] and b[i][0][head] != b[i][1][head])
    only_b = sum(1 for i in a if a[i][0][head] != a[i][1][head] and b[i][0][head] == b[i][1][head])
    z = (only_a - only_b) / math.sqrt(only_a + only_b) if only_a + only_b else 0.0
    return f"{head}: {only_a} right only with --options, {only_b} only with --against (z = {z:+.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--options", default="",
                        help="`reception train` options to try, as one string after = (--options=\"--no-bigrams\")")
    parser.add_argument("--against", default="", help="the options to compare with, the same way (default: the shipped ones)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--leave-source-out", action="store_true",
                        help="instead of folds, predict each source's messages by a model trained without that source")
    parser.add_argument("--reception", default=os.path.join(ROOT, ".build", "release", "reception"))
    args = parser.parse_args()
    if args.folds < 2:
        sys.exit("--folds must be 2 or more")
    held = [r for r in baselines.read(baselines.HUMANS) if in_training_parts(r["id"])]
    with tempfile.TemporaryDirectory(prefix="intent-cv-") as workdir:
        if not args.leave_source_out:
            for k in range(args.folds):
                write_fold_root(workdir, k, args.folds)
        results = {}
        for label, options in (("options", args.options), ("against", args.against)):
            split = shlex.split(options)
            human = (leave_source_out(args.reception, split, held, workdir, label) if args.leave_source_out
                     else cross_validate(args.reception, split, args.folds, held, workdir, label))
            results[label] = (human, model_written(args.reception, split, workdir, label))
    scheme = "each source left out" if args.leave_source_out else f"{args.folds}-fold"
    for label, options in (("options", args.options), ("against", args.against)):
        human, project = results[label]
        print(f"--{label} {options or '(defaults)'}")
        print(f"  human train+dev, {scheme} ({len(human)}): {summary(list(human.values()))}")
        print(f"    intent / urgency by source: {by_source(list(human.values()))}")
        print(f"  project dev ({len(project)}), trained on the train parts: {summary(project)}")
    for head in HEADS:
        print("paired, human " + paired(results["options"][0], results["against"][0], head))


if __name__ == "__main__":
    sys.exit(main())
