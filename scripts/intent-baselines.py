#!/usr/bin/env python3
"""Trains two learned baselines on the same messages as `reception train`, evaluates them and
Reception on labelled corpora, and prints one table per held-out set.

A development tool, not part of the package. Needs `pip install scikit-learn fasttext-wheel`
(numpy comes with them) and a release build of reception:

    swift build -c release --product reception
    scripts/intent-baselines.py --standard            # every held-out set of docs/intent-human-text.md
    scripts/intent-baselines.py --split train --eval HUMAN HUMAN2 --eval-split dev
                                                      # one set, trained as the shipped model but on the
                                                      # train parts only; HUMAN = ../shared/corpora/human-train/agreed.jsonl,
                                                      # HUMAN2 = ../shared/corpora/human-train/batch-2/agreed.jsonl
    scripts/intent-baselines.py --train mine.jsonl --eval theirs.jsonl   # other corpora

The systems:
- Reception: `reception train` with the same files and options, then `reception eval --json`
  (or the built-in model with --shipped); µs/message from `reception bench` on the set.
- fastText: supervised, word 1-2-grams, one model per head.
- TF-IDF + LR: word 1-2-grams and character 2-5-grams (within words), logistic regression.

Messages people wrote (those with a `source`) count --source-weight times for every system:
sample weights for the regression, repeated lines for fastText. The shipped training set reads
the human-written batches as the two annotators' passes, as `reception train
--with-shipped-corpora` does: a message they labelled differently is a line per label with half
its weight (for fastText, a line per label where an agreed message has two). The human corpus is
read from ../shared and only written to a temporary directory, never into the project.
"""
import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
HUMAN = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpora", "human-train", "agreed.jsonl"))
# The second human-written batch (claim-checking titles, fact-check and in-depth forums, buying
# advice, problems happening now): same format, ids ht2-NNNN.
HUMAN_2 = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpora", "human-train", "batch-2", "agreed.jsonl"))
HUMANS = [HUMAN, HUMAN_2]
# As the shipped model (ShippedCorpora.swift): the project's train and dev splits, and the train
# and dev parts of both human-written batches, read as their annotators' passes; every test part
# is held out. Trained by `reception train --with-shipped-corpora`.
MODEL_WRITTEN = [os.path.join(ROOT, "Tests", "Corpora", "train.jsonl"), os.path.join(ROOT, "Tests", "Corpora", "dev.jsonl")]
HUMAN_BATCHES = [os.path.dirname(HUMAN), os.path.dirname(HUMAN_2)]
SHIPPED_TRAIN = None
SHIPPED_PARTS = ["train", "dev"]
# The project's adjudication of messages the two annotators disagreed on (ids and labels only),
# joined by id to the texts in ../shared, as `reception train --labels --texts` joins them. Not in
# the shipped model's training (it did no better held out): --labels ADJUDICATED adds it.
ADJUDICATED = os.path.join(ROOT, "Tests", "Corpora", "human-adjudicated.jsonl")
HUMAN_TEXTS = os.path.join(os.path.dirname(HUMAN), "messages.jsonl")
UNSEEN = os.path.join(ROOT, "Tests", "Corpora", "unseen")
SOURCES = ["reddit-top-2013", "clinc150", "braun2017", "banking77", "skeptics.se"]
HEADS = ["intent", "urgency"]
# The shipped model's training weight of human-written messages (Trainer's sourceWeight default).
SOURCE_WEIGHT = 1.5


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def part(identifier):
    """The id-hash split of CorpusSplit (Sources/ReceptionIntent/Corpus.swift)."""
    bucket = fnv1a(identifier.encode("utf-8")) % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def read(paths):
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


def read_passes(folder):
    """A batch as CorpusReader.read(passes:texts:) reads it: one row where both annotators agree,
    a row per label with "share" 0.5 where they differ, nothing where either skipped."""
    passes = [{row["id"]: row for row in read([os.path.join(folder, name)])} for name in ("labels_a.jsonl", "labels_b.jsonl")]
    rows = []
    for message in read([os.path.join(folder, "messages.jsonl")]):
        labels = [p.get(message["id"]) for p in passes]
        if any(label is None or label.get("skip") for label in labels):
            continue
        lines = [dict(message, intent=label["intent"], urgency=label["urgency"]) for label in labels]
        if all((l["intent"], l["urgency"]) == (lines[0]["intent"], lines[0]["urgency"]) for l in lines):
            rows.append(lines[0])
        else:
            rows += [dict(line, share=1 / len(lines)) for line in lines]
    return rows


def training_rows(train_files):
    if train_files is SHIPPED_TRAIN:
        return read(MODEL_WRITTEN) + [row for folder in HUMAN_BATCHES for row in read_passes(folder)]
    return read(train_files)


def read_labels(labels, texts):
    """Label lines ({id, intent, urgency}) with the text and source of their message."""
    messages = {row["id"]: row for row in read([texts])}
    return [dict(label, text=messages[label["id"]]["text"], source=messages[label["id"]].get("source"))
            for label in read([labels])]


def select(rows, splits=None, exclude=(), only=()):
    """As TrainingSelection: an id-hash part, sources left out (dataset or dataset:subset)."""
    def source_matches(row, names):
        source = row.get("source")
        return source is not None and (source in names or source.split(":", 1)[0] in names)
    kept = []
    for row in rows:
        if splits and ("id" not in row or part(row["id"]) not in splits):
            continue
        if exclude and source_matches(row, exclude):
            continue
        if only and not source_matches(row, only):
            continue
        kept.append(row)
    return kept


def write_jsonl(rows, path):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def tokens(text):
    return re.findall(r"[a-z0-9']+|[?!]", text.lower())


def ece(confidence, correct, bins=10):
    total = len(confidence)
    error = 0.0
    for b in range(bins):
        members = [i for i, c in enumerate(confidence) if min(int(c * bins), bins - 1) == b]
        if members:
            gap = sum(correct[i] for i in members) / len(members) - sum(confidence[i] for i in members) / len(members)
            error += len(members) / total * abs(gap)
    return error


def scores(truth, predicted, confidence=None):
    from sklearn.metrics import f1_score
    labels = sorted(set(truth))
    correct = [t == p for t, p in zip(truth, predicted)]
    return {"accuracy": sum(correct) / len(truth),
            "macroF1": f1_score(truth, predicted, labels=labels, average="macro", zero_division=0),
            "ece": ece(confidence, correct) if confidence is not None else None}


def per_message_us(predict, texts, limit=400):
    sample = texts[:limit]
    times = []
    for text in sample:
        start = time.perf_counter_ns()
        predict(text)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1000


class FastText:
    name = "fastText (word 1-2-grams)"

    def __init__(self, train, weight, workdir):
        import fasttext
        self.models = {}
        for head in HEADS:
            path = os.path.join(workdir, f"fasttext-{head}.txt")
            lines = []
            for row in train:
                copies = max(1, round(weight * row.get("share", 1))) if row.get("source") else 1
                lines += [f"__label__{row[head]} {' '.join(tokens(row['text']))}\n"] * copies
            random.Random(7).shuffle(lines)
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(lines)
            self.models[head] = fasttext.train_supervised(path, wordNgrams=2, epoch=25, lr=0.5, dim=50, minCount=1,
                                                          thread=1, seed=7, verbose=0)

    def predict(self, head, text):
        # The binding's own predict() fails under numpy 2 (np.array(copy=False)); its C++
        # object answers the same (probability, label) pairs directly.
        probability, label = self.models[head].f.predict(" ".join(tokens(text)), 1, 0.0, "strict")[0]
        return label.replace("__label__", ""), min(1.0, float(probability))


class TfidfLR:
    name = "TF-IDF word+char, LR"

    def __init__(self, train, weight, workdir):
        from scipy.sparse import hstack
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        self.hstack = hstack
        texts = [row["text"] for row in train]
        self.word = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True, lowercase=True)
        self.char = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2, sublinear_tf=True, lowercase=True)
        x = hstack([self.word.fit_transform(texts), self.char.fit_transform(texts)]).tocsr()
        sample_weight = [(weight if row.get("source") else 1.0) * row.get("share", 1) for row in train]
        self.models = {}
        for head in HEADS:
            model = LogisticRegression(C=10, max_iter=3000)
            model.fit(x, [row[head] for row in train], sample_weight=sample_weight)
            self.models[head] = model

    def predict(self, head, text):
        x = self.hstack([self.word.transform([text]), self.char.transform([text])]).tocsr()
        probabilities = self.models[head].predict_proba(x)[0]
        best = max(range(len(probabilities)), key=lambda k: probabilities[k])
        return self.models[head].classes_[best], float(probabilities[best])


def baseline_row(system, evaluation):
    row = {"system": system.name}
    for head in HEADS:
        predictions = [system.predict(head, r["text"]) for r in evaluation]
        row[head] = scores([r[head] for r in evaluation], [p[0] for p in predictions], [p[1] for p in predictions])
    texts = [r["text"] for r in evaluation]
    row["us"] = per_message_us(lambda t: (system.predict("intent", t), system.predict("urgency", t)), texts)
    return row


def reception_row(args, train_files, train_args, evaluation, workdir, shipped):
    binary = args.reception
    eval_path = os.path.join(workdir, "eval.jsonl")
    write_jsonl(evaluation, eval_path)
    model = []
    if not shipped:
        weights = os.path.join(workdir, "weights.json")
        corpora = ["--with-shipped-corpora", "--corpora-root", ROOT] if train_files is SHIPPED_TRAIN else train_files
        subprocess.run([binary, "train", *corpora, *train_args, "--out", weights, "--force"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        model = ["--weights", weights]
    report = json.loads(subprocess.run([binary, "eval", eval_path, "--json", "--worst", "0", *model], check=True,
                                       capture_output=True, text=True).stdout)
    row = {"system": "Reception" + (" (shipped)" if shipped else "")}
    for head in HEADS:
        row[head] = {key: report[head][key] for key in ("accuracy", "macroF1", "ece")}
    bench = json.loads(subprocess.run([binary, "bench", "--corpus", eval_path, "--rounds", "5", "--messages", "1000",
                                       "--json", *model], check=True, capture_output=True, text=True).stdout)
    row["us"] = bench["medianNanoseconds"] / 1000
    return row


def table(title, count, rows):
    print(f"\n{title} ({count} messages)")
    print("| system | intent acc | intent macro-F1 | intent ECE | urgency acc | urgency macro-F1 | urgency ECE | µs/message |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        cells = [row["system"]]
        for head in HEADS:
            s = row[head]
            cells += [f"{s['accuracy']:.3f}", f"{s['macroF1']:.3f}", "—" if s["ece"] is None else f"{s['ece']:.3f}"]
        cells.append(f"{row['us']:.1f}")
        print("| " + " | ".join(cells) + " |")
    sys.stdout.flush()


def run_set(args, title, train_files, splits, exclude, evaluation, shipped=False):
    rows = training_rows(train_files)
    train_args = [a for s in (splits or []) for a in ("--split", s)] + [a for s in exclude for a in ("--exclude-source", s)]
    if args.labels:
        rows += read_labels(args.labels, args.texts)
        train_args += ["--labels", args.labels, "--texts", args.texts]
    train = select(rows, splits, exclude)
    train_args += ["--source-weight", str(args.source_weight)]
    with tempfile.TemporaryDirectory(prefix="intent-baselines-") as workdir:
        rows = [reception_row(args, train_files, train_args, evaluation, workdir, shipped)]
        for system in (FastText, TfidfLR):
            rows.append(baseline_row(system(train, args.source_weight, workdir), evaluation))
    # A disagreement is a line per annotator and one message.
    shared = {(row.get("id"), row["text"]) for row in train if "share" in row}
    lines = sum(1 for row in train if "share" in row)
    counted = f"{len(train) - lines + len(shared)} messages" + (f" ({len(train)} lines)" if shared else "")
    table(f"{title}; trained on {counted}", len(evaluation), rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--standard", action="store_true",
                        help="every held-out set: the human random split (test part), each human source left out, the unseen batches")
    parser.add_argument("--train", nargs="+", default=SHIPPED_TRAIN, help="training corpora (default: those of the shipped model)")
    parser.add_argument("--split", action="append",
                        help="train on this id-hash part only (repeatable; default with the default --train: train)")
    parser.add_argument("--exclude-source", action="append", default=[], help="leave this source out of training")
    parser.add_argument("--source-weight", type=float, default=SOURCE_WEIGHT)
    parser.add_argument("--labels", default="",
                        help=f"labels without texts, joined by id to --texts, added to every system's training (such as {os.path.relpath(ADJUDICATED, ROOT)})")
    parser.add_argument("--texts", default=HUMAN_TEXTS, help="the messages --labels label")
    parser.add_argument("--eval", nargs="+", help="labelled corpora to evaluate on")
    parser.add_argument("--eval-split", action="append", help="evaluate on this id-hash part only")
    parser.add_argument("--eval-source", action="append", default=[], help="evaluate on this source only")
    parser.add_argument("--shipped", action="store_true",
                        help="Reception's built-in model instead of training one (it was trained as the default --train, --split)")
    parser.add_argument("--reception", default=os.path.join(ROOT, ".build", "release", "reception"))
    args = parser.parse_args()
    if not os.path.exists(args.reception):
        parser.error(f"{args.reception} not found: swift build -c release --product reception")
    if args.standard:
        human = read(HUMANS)
        run_set(args, "human, random held-out part (test)", SHIPPED_TRAIN, SHIPPED_PARTS, [],
                select(human, ["test"]), shipped=args.shipped)
        for source in SOURCES:
            run_set(args, f"human, source {source} left out (all of it)", SHIPPED_TRAIN, SHIPPED_PARTS, [source],
                    select(human, only=[source]))
        unseen = read(sorted(os.path.join(UNSEEN, f) for f in os.listdir(UNSEEN) if f.endswith(".jsonl")))
        run_set(args, "model-written unseen batches", SHIPPED_TRAIN, SHIPPED_PARTS, [], unseen, shipped=args.shipped)
        return 0
    if args.split is None and args.train == SHIPPED_TRAIN:
        args.split = SHIPPED_PARTS  # as the shipped model: the human held-out parts never train
    if not args.eval:
        parser.error("give --eval FILE... or --standard")
    evaluation = select(read(args.eval), args.eval_split, (), args.eval_source)
    run_set(args, ", ".join(args.eval), args.train, args.split, args.exclude_source, evaluation, shipped=args.shipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
