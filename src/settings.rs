//! Settings: flag > environment > git config > default, with origins (SPEC §3.3).
