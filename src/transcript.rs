//! Transcript readers: Qwen Code, Claude Code, generic JSONL (SPEC §8.1).
