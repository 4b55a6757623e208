#!/usr/bin/env python3
"""Rebuilds Tests/Corpora/{train,dev,test}.jsonl from Tests/Corpora/source/*.jsonl.

The split is the project's deterministic one (CorpusSplit in Sources/ReceptionIntent/Corpus.swift):
FNV-1a (64 bit) of the message id, mod 100: 0-69 train, 70-84 dev, 85-99 test. Lines are
copied byte for byte, in file order (writer-a, writer-b, ...). Run it after adding or editing
a source file; a test fails when the committed split differs from what this script writes.
"""
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Corpora")


def fnv1a(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def part(identifier: str) -> str:
    bucket = fnv1a(identifier.encode("utf-8")) % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def main() -> int:
    parts = {"train": [], "dev": [], "test": []}
    seen = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "source", "*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                try:
                    identifier = json.loads(line)["id"]
                except (ValueError, KeyError) as error:
                    print(f"{path}:{number}: {error}", file=sys.stderr)
                    return 1
                if identifier in seen:
                    print(f"{path}:{number}: duplicate id {identifier}", file=sys.stderr)
                    return 1
                seen.add(identifier)
                parts[part(identifier)].append(line)
    for name, lines in parts.items():
        with open(os.path.join(ROOT, f"{name}.jsonl"), "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        print(f"{name}: {len(lines)} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
