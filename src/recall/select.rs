//! Model-based selection among recall candidates (SPEC §6, reference §5.1).
