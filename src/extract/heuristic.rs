//! The offline extraction heuristic (SPEC §8.2 step 4).
