#!/usr/bin/env bash
# Seeds the fuzzer's corpus with every shipped scenario (TOML as is, and the same as JSON),
# and the scenarios carrying the sections no shipped one does (the golden fixtures and
# tests/mutant_seeds/, as tests/mutation.py's seeds).
set -euo pipefail
cd "$(dirname "$0")"
out=corpus/scenario_loader
mkdir -p "$out"
find ../scenarios ../crates/airqueue/tests/golden ../tests/mutant_seeds -name '*.toml' | sort | while read -r f; do
  name=$(echo "$f" | sed 's|^\.\./||; s|^scenarios/||; s|/|_|g')
  cp "$f" "$out/$name"
  python3 -c 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))' "$f" > "$out/${name%.toml}.json"
done
echo "$(ls "$out" | wc -l) seeds in $out"
