//! Project identity and paths (SPEC §3.1–3.2).
