//! Atomic writes, the mutation lock, and state files (SPEC §3.4, §4.3).
