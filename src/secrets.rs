//! The secret scanner (SPEC §11, reference qwen-extract §6).
