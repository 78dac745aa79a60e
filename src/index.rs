//! The MEMORY.md index (SPEC §4.2, reference qwen-storage §5).
