# Everyday commands. `make test` is what CI runs (after `pip install '.[test]'`).
.PHONY: install test test-rust test-python lint bench docs

install:
	python3 -m pip install '.[test]'

test: lint test-rust test-python

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	ruff check python tests tools
	ruff format --check python tests tools
	python3 tools/gen_scenario_reference.py --check

# Release mode: the statistical reference tests simulate millions of packets.
test-rust:
	cargo test -p airqueue --release

test-python:
	python3 -m pytest -q

bench:
	cargo bench -p airqueue
	airqueue bench scenarios/examples/udp-bottleneck.toml --repeat 5
	airqueue bench scenarios/bench/wifi-saturated-10.toml --repeat 5
	airqueue bench scenarios/bench/wifi-saturated-100.toml --repeat 5

docs:
	python3 tools/gen_scenario_reference.py
