#!/usr/bin/env python3
"""Reception's trainer mirrored in scikit-learn, for trying a feature family in seconds before
writing it into the hot path.

A development tool, not part of the package. Needs scikit-learn and a release build of reception:

    swift build -c release --product reception
    scripts/intent-replica.py                       # the replica alone, on the dev parts
    scripts/intent-replica.py --family char-grams --family ask-split   # both families added together
    scripts/intent-replica.py --family stems --folds 5
    scripts/intent-replica.py --domains             # a weight copy per kind of text
    scripts/intent-replica.py --domains --folds 5   # the same, over folds of the train and dev parts

The features of every message come from the shipped model's extractor
(`reception classify --jsonl-input --features`); the regression mirrors `Trainer`: L2 strengths
per feature kind (by scaling the word columns), class balancing 0.25, human-written messages
weighing 1.5, the bias unpenalised. It trains on the project's train split and the `train`
parts of both human-written batches' agreed files (the shipped model also reads the
annotators' disagreements), so its figures sit a few messages from `reception train`'s; a
family that moves the replica is worth porting and one that does not is not.

The shipped vocabulary was built from the `train` and `dev` parts, so a dev message's words
are known to the extractor even where only dev has them: that favours no family over another,
but the replica's absolute dev figures are a little high, and a left-out source would leak
through the vocabulary. The test parts (--test) are for a family already chosen on dev.
"""
import argparse
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import zlib

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_spec = importlib.util.spec_from_file_location("baselines", os.path.join(ROOT, "scripts", "intent-baselines.py"))
baselines = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baselines)

# TrainingOptions defaults.
L2, L2_WORDS, BALANCE, SOURCE_WEIGHT = 0.00025, 0.0001, 0.25, 1.5
TIME_WORDS = set("""today tonight tomorrow now asap urgent urgently immediately deadline soon quickly hour hours
minute minutes week weekend morning monday tuesday wednesday thursday friday saturday sunday""".split())


def with_features(rows, binary):
    """Each row with "f": the names of the features the shipped extractor turns on."""
    payload = "".join(json.dumps({"text": r["text"], "goal": r.get("goal")}, ensure_ascii=False) + "\n" for r in rows)
    out = subprocess.run([binary, "classify", "--jsonl-input", "--features"], input=payload, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert len(out) == len(rows), "reception classify skipped lines"
    return [dict(r, f=json.loads(line)["features"]) for r, line in zip(rows, out)]


def words(text):
    return re.findall(r"[a-z0-9']+", text.lower())


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text.strip()) if re.search(r"[a-z0-9]", s.lower())]


def char_grams(row):
    """Character 3-5-grams of each word with its boundaries ("<word>"), hashed into 2^15 buckets,
    each worth 1/sqrt(count) so a long message does not outweigh its words."""
    bounded = ["<" + w + ">" for w in words(row["text"])]
    grams = {b[i:i + n] for b in bounded for n in (3, 4, 5) for i in range(len(b) - n + 1)}
    buckets = {"char:%d" % (zlib.crc32(g.encode()) % (1 << 15)) for g in grams}
    return {b: 1 / math.sqrt(len(buckets)) for b in buckets}


def stem(word):
    """A light suffix-stripping stem ("applying", "applied", "applies" -> "appl"), so that a word
    seen in training in one form counts for its other forms."""
    for suffix in ("ations", "ation", "ments", "ment", "ingly", "ings", "ing", "edly", "ied", "ies", "ers", "er",
                   "ed", "es", "ly", "s", "y", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(row):
    """Each word's stem, as a feature of its own beside the word ("stem:appl")."""
    return {"stem:" + stem(w): math.sqrt(L2 / L2_WORDS) for w in words(row["text"]) if len(w) > 2}


NEGATIONS = set("not no never cant cannot wont doesnt isnt arent didnt hasnt havent wasnt werent couldnt "
                "can't won't doesn't isn't aren't didn't hasn't haven't wasn't weren't couldn't".split())
OWN = {"my", "mine", "i", "me", "i'm", "im", "i've", "ive"}


def own_trouble(row):
    """Conjunctions a bag of words cannot express: the writer's own thing with a negation ("my card
    isn't working"), the writer's own thing asked why, the writer's own thing and "yet"."""
    w = words(row["text"])
    present = set(w)
    features = {}
    if present & OWN and present & NEGATIONS:
        features["own+negation"] = 1.0
    if present & OWN and w and w[0] in ("why", "how"):
        features["own+" + w[0] + "-first"] = 1.0
    if present & OWN and "yet" in present:
        features["own+yet"] = 1.0
    return features


def ask_split(row, vocabulary):
    """For a message of several sentences: its last sentence's words apart ("ask:word"), the
    number of sentences, and whether a time word stands only in the context before the ask
    (a quoted "tomorrow" is not the person's deadline)."""
    parts = sentences(row["text"])
    if len(parts) < 2:
        return {}
    ask, context = words(parts[-1]), words(" ".join(parts[:-1]))
    features = {"ask:" + w: 1.0 for w in ask if w in vocabulary}
    features["sentences:%d" % min(len(parts), 4)] = 1.0
    if any(w in TIME_WORDS for w in ask):
        features["ask:time"] = 1.0
    elif any(w in TIME_WORDS for w in context):
        features["context-only:time"] = 1.0
    return features


def matrix(rows, families, columns, vocabulary, fit, domain=None):
    from scipy.sparse import csr_matrix
    data, indices, pointers = [], [], [0]
    for position, row in enumerate(rows):
        values = {f: (math.sqrt(L2 / L2_WORDS) if f.startswith("word:") else 1.0) for f in row["f"]}
        if "char-grams" in families:
            values.update(char_grams(row))
        if "ask-split" in families:
            values.update(ask_split(row, vocabulary))
        if "own-trouble" in families:
            values.update(own_trouble(row))
        if "stems" in families:
            values.update(stems(row))
        if domain is not None:
            # Every feature again under the message's domain: weights shared by both kinds of
            # text plus a correction for each (Daumé III, "Frustratingly easy domain adaptation").
            values.update({domain[position] + "|" + name: value for name, value in list(values.items())})
        for name, value in sorted(values.items()):
            if fit:
                columns.setdefault(name, len(columns))
            if name in columns:
                indices.append(columns[name])
                data.append(value)
        pointers.append(len(indices))
    return csr_matrix((data, indices, pointers), shape=(len(rows), max(len(columns), 1)))


def sample_weights(rows, head):
    own = [SOURCE_WEIGHT if r.get("source") else 1.0 for r in rows]
    counts = {}
    for r, w in zip(rows, own):
        counts[r[head]] = counts.get(r[head], 0) + w
    total = sum(counts.values())
    balance = {label: (total / (len(counts) * n)) ** BALANCE for label, n in counts.items()}
    return [balance[r[head]] * w for r, w in zip(rows, own)]


def kind(row):
    return "human" if row.get("source") else "model"


def domain_rows(train, sets, vocabulary, quiet=False):
    """The replica with a copy of every feature per kind of text, evaluated with each set's true
    kind and with the kind a logistic regression on the plain features guesses."""
    from sklearn.linear_model import LogisticRegression
    plain = {}
    x_plain = matrix(train, [], plain, vocabulary, fit=True)
    guesser = LogisticRegression(C=1 / (L2 * len(train)), max_iter=3000, tol=1e-6)
    guesser.fit(x_plain, [kind(r) for r in train])
    guessed = {name: list(guesser.predict(matrix(rows, [], plain, vocabulary, fit=False))) for name, rows in sets.items()}
    columns = {}
    x = matrix(train, [], columns, vocabulary, fit=True, domain=[kind(r) for r in train])
    scores = {"truth": {}, "guessed": {}}
    for head in baselines.HEADS:
        weights = sample_weights(train, head)
        model = LogisticRegression(C=1 / (L2 * sum(weights)), max_iter=3000, tol=1e-6)
        model.fit(x, [r[head] for r in train], sample_weight=weights)
        for name, evaluation in sets.items():
            for told, domain in (("truth", [kind(r) for r in evaluation]), ("guessed", guessed[name])):
                predicted = model.predict(matrix(evaluation, [], columns, vocabulary, fit=False, domain=domain))
                accuracy = sum(p == r[head] for p, r in zip(predicted, evaluation)) / len(evaluation)
                scores[told].setdefault(name, []).append(accuracy)
    for name, rows in sets.items():
        right = sum(g == kind(r) for g, r in zip(guessed[name], rows))
        if not quiet:
            print(f"kind of text guessed right: {name} {right} of {len(rows)}")
    return [("replica × kind, kind known", len(columns), scores["truth"]),
            ("replica × kind, kind guessed", len(columns), scores["guessed"])]


def replica_rows(args, train, sets, vocabulary):
    from sklearn.linear_model import LogisticRegression
    rows = []
    for families in [[]] + ([args.family] if args.family else []):
        columns = {}
        x = matrix(train, families, columns, vocabulary, fit=True)
        scores = {}
        for head in baselines.HEADS:
            weights = sample_weights(train, head)
            model = LogisticRegression(C=1 / (L2 * sum(weights)), max_iter=3000, tol=1e-6)
            model.fit(x, [r[head] for r in train], sample_weight=weights)
            for name, evaluation in sets.items():
                predicted = model.predict(matrix(evaluation, families, columns, vocabulary, fit=False))
                accuracy = sum(p == r[head] for p, r in zip(predicted, evaluation)) / len(evaluation)
                scores.setdefault(name, []).append(accuracy)
        rows.append(("replica" + "".join(" + " + f for f in families), len(columns), scores))
    return rows


def cross_validated(args, project, held, vocabulary):
    """Every row over k folds of the human `train` and `dev` parts: each fold predicted by models
    trained on the project's train split and the other folds (accuracies pooled over folds)."""
    import hashlib
    pooled = {}
    for k in range(args.folds):
        def in_fold(row):
            return int(hashlib.md5(row["id"].encode("utf-8")).hexdigest(), 16) % args.folds == k
        train = project + [r for r in held if not in_fold(r)]
        fold_set = {"fold": [r for r in held if in_fold(r)]}
        rows = replica_rows(args, train, fold_set, vocabulary)
        if args.domains:
            rows += domain_rows(train, fold_set, vocabulary, quiet=True)
        for label, count, scores in rows:
            right = [a * len(fold_set["fold"]) for a in scores["fold"]]
            total = pooled.get(label, (count, [0.0] * len(right)))[1]
            pooled[label] = (count, [t + r for t, r in zip(total, right)])
    name = f"human train+dev, {args.folds} folds"
    return [(label, count, {name: [r / len(held) for r in right]}) for label, (count, right) in pooled.items()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", action="append", default=[], choices=["char-grams", "ask-split", "stems", "own-trouble"],
                        help="a feature family to add to the replica (repeatable)")
    parser.add_argument("--domains", action="store_true",
                        help="also: every feature copied per kind of text (human-written or model-written), told at "
                             "evaluation by the truth (an upper bound) and by a classifier of the kind on the same features")
    parser.add_argument("--test", action="store_true", help="evaluate the test parts instead of the dev parts")
    parser.add_argument("--folds", type=int, default=0, metavar="K",
                        help="instead: cross-validate over this many folds of the human train and dev parts "
                             "(folds as scripts/intent-cv.py makes them)")
    parser.add_argument("--reception", default=os.path.join(ROOT, ".build", "release", "reception"))
    args = parser.parse_args()

    human = baselines.read(baselines.HUMANS)
    project = baselines.read([os.path.join(ROOT, "Tests", "Corpora", "train.jsonl")])

    def single_words(rows):
        """The model's single words, as the extractor names them (word:"how")."""
        return {f[6:-1] for r in rows for f in r["f"] if f.startswith('word:"') and " " not in f}

    if args.folds:
        held = with_features(baselines.select(human, {"train", "dev"}), args.reception)
        project = with_features(project, args.reception)
        sets = {f"human train+dev, {args.folds} folds": held}
        rows = cross_validated(args, project, held, single_words(project + held))
    else:
        part = "test" if args.test else "dev"
        train = with_features(project + baselines.select(human, {"train"}), args.reception)
        sets = {
            "human " + part: with_features(baselines.select(human, {part}), args.reception),
            "project " + part: with_features(baselines.read([os.path.join(ROOT, "Tests", "Corpora", part + ".jsonl")]),
                                             args.reception),
        }
        vocabulary = single_words(train)
        rows = replica_rows(args, train, sets, vocabulary)
        if args.domains:
            rows += domain_rows(train, sets, vocabulary)
    names = list(sets)
    print("| features | columns | " + " | ".join(f"{n} ({len(sets[n])}) intent / urgency" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for label, count, scores in rows:
        print(f"| {label} | {count:,} | " + " | ".join("%.3f / %.3f" % tuple(scores[n]) for n in names) + " |")


if __name__ == "__main__":
    sys.exit(main())
