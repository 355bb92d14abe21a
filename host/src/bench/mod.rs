//! Benchmarks (filled below).
