"""Benchmarks; each module runs as a script and exposes its measurements for other benchmarks."""
