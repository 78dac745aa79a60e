//! Extract: durable facts from transcripts into topic documents (SPEC §8).

pub mod heuristic;
